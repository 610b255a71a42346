import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/*
 * The browser the viewer's tests drive (ADR 0090, ADR 0102): `CHROMIUM_PATH` when set, otherwise
 * the headless Chromium that the `@sparticuz/chromium` devDependency ships brotli-compressed, with
 * the shared libraries the package ships beside it. Nothing comes from the system's package manager.
 */

export interface ChromiumLaunch {
  readonly executablePath: string;
  readonly args: readonly string[];
  /** Extra environment for the browser process: the unpacked fonts and shared libraries. */
  readonly env: Readonly<Record<string, string>>;
}

/** Flags that keep the browser from calling home: the tests require every request to stay on the viewer's origin. */
const QUIET = ['--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'];

const HOW_TO_GET_ONE =
  'run `npm ci` (it installs @sparticuz/chromium, a headless Chromium for Linux x64/arm64), or set CHROMIUM_PATH to a Chromium or Chrome binary';

/**
 * The package's archive of the shared libraries its Chromium links (NSS, NSPR, expat). The package
 * unpacks it only on Amazon Linux; we always do, so a machine without those system packages runs it.
 */
const LIBRARIES_ARCHIVE = 'al2023.tar.br';
/** Where that archive unpacks, relative to the cache directory. */
const LIBRARIES_DIR = join('al2023', 'lib');

/** The browser to launch, or an Error whose one-line message says how to get one. Never skips. */
export async function chromiumLaunch(): Promise<ChromiumLaunch> {
  const override = process.env['CHROMIUM_PATH'];
  if (override !== undefined && override !== '') {
    if (!existsSync(override)) throw new Error(`CHROMIUM_PATH=${override} does not exist: ${HOW_TO_GET_ONE}`);
    return { executablePath: override, args: ['--headless', '--disable-gpu', ...rootFlags(), ...QUIET], env: {} };
  }
  const packaged = await loadPackagedChromium();
  const dir = await unpackOnce(packaged);
  await unpackLibrariesOnce(packaged, dir);
  return {
    executablePath: join(dir, 'chromium'),
    args: [...packaged.args, ...QUIET],
    env: { FONTCONFIG_FILE: join(dir, 'fonts.conf'), LD_LIBRARY_PATH: libraryPath(join(dir, LIBRARIES_DIR)) },
  };
}

interface PackagedChromium {
  readonly version: string;
  readonly args: string[];
  /** The package's `bin` folder, holding its brotli archives. */
  readonly binDir: string;
  executablePath(): Promise<string>;
  /** The package's own unpacker: `<archive>.tar.br` into `<os.tmpdir()>/<archive>/`. */
  inflate(archive: string): Promise<string>;
}

async function loadPackagedChromium(): Promise<PackagedChromium> {
  if (process.platform !== 'linux' || !['x64', 'arm64'].includes(process.arch)) {
    throw new Error(`no packaged Chromium for ${process.platform}/${process.arch}: set CHROMIUM_PATH to a Chromium or Chrome binary`);
  }
  let module: { default: { args: string[]; executablePath(): Promise<string> }; inflate(filePath: string): Promise<string> };
  try {
    module = (await import('@sparticuz/chromium')) as typeof module;
  } catch {
    throw new Error(`@sparticuz/chromium is not installed: ${HOW_TO_GET_ONE}`);
  }
  // The package exports no ./package.json; its entry is build/index.js and its archives are in bin/.
  const entry = import.meta.resolve('@sparticuz/chromium');
  const { version } = JSON.parse(readFileSync(new URL('../package.json', entry), 'utf8')) as { version: string };
  return {
    version,
    args: module.default.args,
    binDir: fileURLToPath(new URL('../bin/', entry)),
    executablePath: () => module.default.executablePath(),
    inflate: (archive) => module.inflate(archive),
  };
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
  await withTmpdir(staging, async () => {
    const binary = await packaged.executablePath();
    if (binary !== join(staging, 'chromium')) throw new Error(`@sparticuz/chromium unpacked to ${binary}, expected ${staging}: ${HOW_TO_GET_ONE}`);
  });
  // The shipped fonts.conf names /tmp/fonts; this one names the fonts where they were unpacked.
  writeFileSync(join(staging, 'fonts.conf'), `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n  <dir>${dir}/fonts</dir>\n  <cachedir>${dir}/fonts-cache</cachedir>\n</fontconfig>\n`);
  renameIntoPlace(staging, dir, join(dir, 'fonts.conf'));
  return dir;
}

/**
 * Unpacks the package's shared libraries into `<dir>/al2023/lib/` once, with the package's own
 * `inflate`, staged and renamed into place like the browser (a cache unpacked before the libraries
 * were gets them added).
 */
async function unpackLibrariesOnce(packaged: PackagedChromium, dir: string): Promise<void> {
  const target = join(dir, 'al2023');
  if (existsSync(join(target, 'lib', 'libnss3.so'))) return;
  const staging = mkdtempSync(join(dir, 'al2023-staging-'));
  await withTmpdir(staging, () => packaged.inflate(join(packaged.binDir, LIBRARIES_ARCHIVE)));
  const unpacked = join(staging, 'al2023');
  if (!existsSync(join(unpacked, 'lib', 'libnss3.so'))) {
    rmSync(staging, { recursive: true, force: true });
    throw new Error(`@sparticuz/chromium's ${LIBRARIES_ARCHIVE} holds no lib/libnss3.so: ${HOW_TO_GET_ONE}`);
  }
  renameIntoPlace(unpacked, target, join(target, 'lib', 'libnss3.so'));
  rmSync(staging, { recursive: true, force: true });
}

/** The package reads `os.tmpdir()` (so `TMPDIR`) to decide where it unpacks. */
async function withTmpdir<T>(dir: string, unpack: () => Promise<T>): Promise<T> {
  const previous = process.env['TMPDIR'];
  process.env['TMPDIR'] = dir;
  try {
    return await unpack();
  } finally {
    if (previous === undefined) delete process.env['TMPDIR'];
    else process.env['TMPDIR'] = previous;
  }
}

/** Renames a staged directory into place; when another process won the race, drops the copy. */
function renameIntoPlace(staging: string, dir: string, marker: string): void {
  try {
    renameSync(staging, dir);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(marker)) throw error;
  }
}

/** The unpacked libraries first, then whatever library path the caller already had. */
function libraryPath(libraries: string): string {
  const inherited = process.env['LD_LIBRARY_PATH'];
  return inherited === undefined || inherited === '' ? libraries : `${libraries}:${inherited}`;
}

/** Chromium refuses to run as root with its sandbox on. */
function rootFlags(): string[] {
  return process.getuid?.() === 0 ? ['--no-sandbox'] : [];
}
