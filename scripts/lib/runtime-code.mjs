// Compares code read from a chain with a generated artifact's runtime code. The constructor
// writes the immutables into the runtime code, so those byte ranges (artifact.immutableRanges)
// are left out here and checked through the contract's getters by the caller.

/** True when `code` is the artifact's runtime code outside its immutables. */
export function runtimeMatches(code, artifact) {
  const actual = hexBytes(code);
  const expected = hexBytes(artifact.deployedBytecode);
  if (actual.length !== expected.length) return false;
  for (const { start, length } of artifact.immutableRanges) {
    actual.fill(0, start, start + length);
    expected.fill(0, start, start + length);
  }
  return actual.equals(expected);
}

function hexBytes(hex) {
  return Buffer.from((hex ?? "0x").slice(2), "hex");
}
