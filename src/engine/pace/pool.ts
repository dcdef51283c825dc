// A bounded pool over an async stream: at most `size` items in flight, items pulled only when a slot frees.
// Invariant: at most `size` items are in flight, and the first error is thrown once every worker has stopped.
export async function forEachPooled<T>(items: AsyncIterable<T>, size: number, fn: (item: T) => Promise<void>): Promise<void> {
  const iterator = items[Symbol.asyncIterator]();
  let failed: unknown;
  const worker = async (): Promise<void> => {
    while (failed === undefined) {
      const next = await iterator.next();
      if (next.done) return;
      await fn(next.value);
    }
  };
  await Promise.all(
    Array.from({ length: Math.max(1, size) }, () =>
      worker().catch((err: unknown) => {
        failed ??= err;
      }),
    ),
  );
  if (failed !== undefined) throw failed;
}
