/**
 * What a test waits for after an answer: a delivery, a line written behind, a notification, a
 * scheduler's run, a feed that shows an event once older transactions end. `probe` is read until
 * `done` holds of its value or `withinMs` have passed, `everyMs` apart; the last value is returned
 * either way, so the assertion that follows shows what was seen instead of a bare "timed out".
 * The bound is what the test allows a loaded CI machine, not what the behaviour promises: a test
 * of a promised bound measures it and asserts on the measure.
 */
export async function waitFor<Value>(
  probe: () => Value | Promise<Value>,
  done: (value: Value) => boolean,
  { withinMs = 10_000, everyMs = 50 }: { withinMs?: number; everyMs?: number } = {},
): Promise<Value> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const value = await probe();
    if (done(value) || Date.now() >= deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** `waitFor` of a condition: whether it came to hold in time. */
export const eventually = (condition: () => boolean | Promise<boolean>, options?: { withinMs?: number; everyMs?: number }): Promise<boolean> =>
  waitFor(condition, (holds) => holds, options);
