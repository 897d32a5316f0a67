// A webhook registration's response for Idempotency-Key replays: stored without its signing
// secret, which is derived from the endpoint id (signing.ts), so the replay answers with the very
// secret the first response showed and D1 never holds it (decision 31).
import { endpointSecret } from "./signing";

const CREATED = 201;

export const registrationResponse = {
  store(body: string, status: number): string {
    if (status !== CREATED) return body;
    const { secret: _secret, ...rest } = JSON.parse(body) as { secret?: string };
    return JSON.stringify(rest);
  },
  async replay(stored: string, status: number, env: Pick<Env, "WALLET_MNEMONIC">): Promise<string> {
    if (status !== CREATED) return stored;
    const endpoint = JSON.parse(stored) as { id: string };
    return JSON.stringify({ ...endpoint, secret: await endpointSecret(env.WALLET_MNEMONIC, endpoint.id) });
  },
};
