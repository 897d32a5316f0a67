// Responses that show a webhook signing secret, kept for Idempotency-Key replays without the
// secret: it is derived from the endpoint id and its version (signing.ts), so the replay answers
// with the very secret the first response showed and D1 never holds it (decisions 31 and 88).
import { endpointSecret } from "./signing";

/** The shape routes/middleware/idempotency.ts's StoredResponseCodec takes. */
interface SecretShowingResponse {
  store(body: string, status: number): string;
  replay(stored: string, status: number, env: Pick<Env, "WALLET_MNEMONIC">): Promise<string>;
}

function secretShownWith(successStatus: number): SecretShowingResponse {
  return {
    store(body, status) {
      if (status !== successStatus) return body;
      const { secret: _secret, ...rest } = JSON.parse(body) as { secret?: string };
      return JSON.stringify(rest);
    },
    async replay(stored, status, env) {
      if (status !== successStatus) return stored;
      // A stored registration without a version is version 1.
      const endpoint = JSON.parse(stored) as { id: string; secretVersion?: number };
      return JSON.stringify({ ...endpoint, secret: await endpointSecret(env.WALLET_MNEMONIC, endpoint.id, endpoint.secretVersion ?? 1) });
    },
  };
}

export const registrationResponse = secretShownWith(201);
export const rotationResponse = secretShownWith(200);
