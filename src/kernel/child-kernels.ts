/**
 * The kernels a kernel's agent tools run their child runs on (`agentTool`, ADR/0455): built from
 * the parent kernel's options with the agent's own on top — what an agent does not set is the
 * parent's — sharing the parent's store (with the parent's redaction under the child's, so neither
 * kernel's secrets reach it). One per agent tool, built at its first call and kept with the parent.
 */
import type { ChildRunOptions } from '../contracts/delegation.js';
import type { ChildKernel } from './delegation.js';
import type { KernelDeps } from './kernel-deps.js';
import type { KernelOptions } from './options.js';

export function childKernels(parent: KernelOptions, deps: KernelDeps, build: (options: KernelOptions) => ChildKernel): (own: ChildRunOptions) => ChildKernel {
  const built = new WeakMap<ChildRunOptions, ChildKernel>();
  return (own) => {
    let kernel = built.get(own);
    if (kernel === undefined) {
      kernel = build(childOptions(parent, deps, own));
      built.set(own, kernel);
    }
    return kernel;
  };
}

function childOptions(parent: KernelOptions, deps: KernelDeps, own: ChildRunOptions): KernelOptions {
  // A child runs the tasks its agent tool gives it, under a signal of the call's.
  const { tasks: _tasks, goal: _goal, signal: _signal, ...inherited } = parent;
  return {
    ...inherited,
    store: deps.store,
    model: own.model ?? parent.model,
    ...(own.tools ?? parent.tools) === undefined ? {} : { tools: own.tools ?? parent.tools },
    ...(own.system ?? parent.system) === undefined ? {} : { system: own.system ?? parent.system },
    ...(own.strategy ?? parent.strategy) === undefined ? {} : { strategy: own.strategy ?? parent.strategy },
    ...(own.policy ?? parent.policy) === undefined ? {} : { policy: own.policy ?? parent.policy },
    ...(own.guardrails ?? parent.guardrails) === undefined ? {} : { guardrails: own.guardrails ?? parent.guardrails },
    bounds: { inner: { ...parent.bounds?.inner, ...own.bounds?.inner }, outer: { ...parent.bounds?.outer, ...own.bounds?.outer } },
  };
}
