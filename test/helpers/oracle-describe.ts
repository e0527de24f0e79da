import { afterAll, beforeAll, describe } from "vitest";
import { oracleSupport, REQUIRE_ORACLES, ShellOracle, type OracleOptions } from "./bash-oracle.js";

/**
 * A `describe` whose tests run command lines in the recording sandbox (ShellOracle): skipped where the
 * sandbox cannot run, unless REQUIRE_ORACLES (CI), under which it fails naming why. `body` gets the
 * oracle, built before its tests and removed after them.
 */
export function describeWithOracle(title: string, body: (oracle: () => ShellOracle) => void, options: OracleOptions = { concurrency: 2, limitSeconds: 10 }): void {
  const support = oracleSupport();
  describe.skipIf(!support.ok && !REQUIRE_ORACLES)(title, () => {
    let oracle: ShellOracle | undefined;
    beforeAll(() => {
      if (!support.ok) throw new Error(`REQUIRE_ORACLES: ${support.reason}`);
      oracle = ShellOracle.create(support.mode, options);
    });
    afterAll(async () => {
      await oracle?.dispose();
    });
    body(() => {
      if (oracle === undefined) throw new Error("the oracle is built before the tests run");
      return oracle;
    });
  });
}
