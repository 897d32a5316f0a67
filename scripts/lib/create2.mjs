// The deterministic deployment proxy (CREATE2 deployer) at 0x4e59b448…: a transaction to it with
// `salt ++ initcode` as data deploys initcode with CREATE2 from the proxy. The address depends
// only on the salt and the initcode, never on who sends it or when, so a contract lands at the
// same address on every chain that has the proxy: anvil ships it by default and OP Stack chains
// (Soneium, Minato) have it as a preinstall.
import { concat, getAddress, getContractAddress } from "viem";

export const CREATE2_DEPLOYER = getAddress("0x4e59b44847b379578588920ca78fbf26c0b4956c");
/** The proxy's runtime code (the same bytes on anvil and in the OP Stack preinstall). */
export const CREATE2_DEPLOYER_CODE =
  "0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe03601600081602082378035828234f58015156039578182fd5b8082525050506014600cf3";

/** Where `initcode` deployed with `salt` through the proxy lands. */
export function create2Address(salt, initcode) {
  return getContractAddress({ opcode: "CREATE2", from: CREATE2_DEPLOYER, salt, bytecode: initcode });
}

/** The proxy's calldata: the 32-byte salt, then the initcode. */
export function create2Calldata(salt, initcode) {
  return concat([salt, initcode]);
}

/** Whether the chain has the proxy: "present", "missing" (no code) or "different" (other code there). */
export async function create2DeployerStatus(client) {
  const code = await client.getCode({ address: CREATE2_DEPLOYER });
  if (!code || code === "0x") return "missing";
  return code.toLowerCase() === CREATE2_DEPLOYER_CODE ? "present" : "different";
}
