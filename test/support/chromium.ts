import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/*
 * The browser the viewer's tests drive (ADR 0090): `CHROMIUM_PATH` when set, otherwise the
 * headless Chromium that the `@sparticuz/chromium` devDependency ships brotli-compressed and
 * unpacks on `executablePath()`. Nothing comes from the system's package manager.
 */

export interface ChromiumLaunch {
  readonly executablePath: string;
  readonly args: readonly string[];
  /** Extra environment for the browser process (the unpacked fonts). */
  readonly env: Readonly<Record<string, string>>;
}

/** Flags that keep the browser from calling home: the tests require every request to stay on the viewer's origin. */
const QUIET = ['--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'];

const HOW_TO_GET_ONE =
  'run `npm ci` (it installs @sparticuz/chromium, a headless Chromium for Linux x64/arm64), or set CHROMIUM_PATH to a Chromium or Chrome binary';

/** The browser to launch, or an Error whose one-line message says how to get one. Never skips. */
export async function chromiumLaunch(): Promise<ChromiumLaunch> {
  const override = process.env['CHROMIUM_PATH'];
  if (override !== undefined && override !== '') {
    if (!existsSync(override)) throw new Error(`CHROMIUM_PATH=${override} does not exist: ${HOW_TO_GET_ONE}`);
    return { executablePath: override, args: ['--headless', '--disable-gpu', ...rootFlags(), ...QUIET], env: {} };
  }
  const packaged = await loadPackagedChromium();
  const dir = await unpackOnce(packaged);
  return {
    executablePath: join(dir, 'chromium'),
    args: [...packaged.args, ...QUIET],
    env: { FONTCONFIG_FILE: join(dir, 'fonts.conf') },
  };
}

interface PackagedChromium {
  readonly version: string;
  readonly args: string[];
  executablePath(): Promise<string>;
}

async function loadPackagedChromium(): Promise<PackagedChromium> {
  if (process.platform !== 'linux' || !['x64', 'arm64'].includes(process.arch)) {
    throw new Error(`no packaged Chromium for ${process.platform}/${process.arch}: set CHROMIUM_PATH to a Chromium or Chrome binary`);
  }
  let module: { default: { args: string[]; executablePath(): Promise<string> } };
  try {
    module = (await import('@sparticuz/chromium')) as typeof module;
  } catch {
    throw new Error(`@sparticuz/chromium is not installed: ${HOW_TO_GET_ONE}`);
  }
  // The package exports no ./package.json; its entry is build/index.js.
  const manifest = new URL('../package.json', import.meta.resolve('@sparticuz/chromium'));
  const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
  return { version, args: module.default.args, executablePath: () => module.default.executablePath() };
}

/**
 * Unpacks the packaged Chromium once per version into `<tmp>/dualloop-chromium-<version>/`.
 * The package unpacks into `os.tmpdir()`, and several test processes (and worktrees) may unpack at
 * the same time: each unpacks into its own staging directory, then renames it into place, so a
 * reader never sees a half-written binary. The loser of the race drops its copy.
 */
async function unpackOnce(packaged: PackagedChromium): Promise<string> {
  const root = tmpdir();
  const dir = join(root, `dualloop-chromium-${packaged.version}`);
  if (existsSync(join(dir, 'fonts.conf'))) return dir;
  const staging = mkdtempSync(join(root, 'dualloop-chromium-staging-'));
  const previous = process.env['TMPDIR'];
  process.env['TMPDIR'] = staging;
  try {
    const binary = await packaged.executablePath();
    if (binary !== join(staging, 'chromium')) throw new Error(`@sparticuz/chromium unpacked to ${binary}, expected ${staging}: ${HOW_TO_GET_ONE}`);
  } finally {
    if (previous === undefined) delete process.env['TMPDIR'];
    else process.env['TMPDIR'] = previous;
  }
  // The shipped fonts.conf names /tmp/fonts; this one names the fonts where they were unpacked.
  writeFileSync(join(staging, 'fonts.conf'), `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n  <dir>${dir}/fonts</dir>\n  <cachedir>${dir}/fonts-cache</cachedir>\n</fontconfig>\n`);
  try {
    renameSync(staging, dir);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(join(dir, 'fonts.conf'))) throw error;
  }
  return dir;
}

/** Chromium refuses to run as root with its sandbox on. */
function rootFlags(): string[] {
  return process.getuid?.() === 0 ? ['--no-sandbox'] : [];
}
