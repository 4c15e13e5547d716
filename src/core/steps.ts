/**
 * Work written as a generator that yields between its steps, so that it can run at once
 * (`runSteps`) or in slices that give the event loop back every few milliseconds
 * (`runStepsInSlices`). The service checks a posted policy this way on its main thread: a
 * policy of thousands of rules takes a few hundred milliseconds to check, and other requests
 * are answered in between (docs/limits.md).
 */
export type Steps<T> = Generator<void, T, void>;

/** Runs every step now. */
export function runSteps<T>(steps: Steps<T>): T {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

const yieldToLoop: () => Promise<void> =
  typeof setImmediate === "function"
    ? () => new Promise((resolve) => setImmediate(resolve))
    : () => new Promise((resolve) => setTimeout(resolve, 0));

/**
 * Runs the steps, returning to the event loop whenever a slice has run `sliceMs`.
 *
 *   const result = await runStepsInSlices(checkSteps(sources)); // same as checkPolicy(sources)
 */
export async function runStepsInSlices<T>(steps: Steps<T>, sliceMs = 8): Promise<T> {
  let sliceStart = performance.now();
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
    if (performance.now() - sliceStart >= sliceMs) {
      await yieldToLoop();
      sliceStart = performance.now();
    }
  }
}
