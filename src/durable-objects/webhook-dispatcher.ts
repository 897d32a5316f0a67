import { DurableObject } from "cloudflare:workers";
import { logWarn } from "../lib/log";
import { serviceContext } from "../services/context";
import { deliverDue } from "../services/webhooks/deliver";

const PROJECT_KEY = "projectId";
const RETRY_AFTER_ERROR_MS = 30_000;

/**
 * Delivers one project's webhooks (logic in services/webhooks/deliver.ts): a kick schedules an
 * immediate alarm; each alarm sends what is due and sleeps until the next retry. Storage:
 * `projectId`. Deliveries themselves live in D1 (`webhook_deliveries`).
 */
export class WebhookDispatcher extends DurableObject<Env> {
  async kick(projectId: string): Promise<void> {
    await this.ctx.storage.put(PROJECT_KEY, projectId);
    const scheduled = await this.ctx.storage.getAlarm();
    if (scheduled === null || scheduled > Date.now()) await this.ctx.storage.setAlarm(Date.now());
  }

  override async alarm(): Promise<void> {
    const projectId = await this.ctx.storage.get<string>(PROJECT_KEY);
    if (!projectId) return;
    try {
      const next = await deliverDue(serviceContext(this.env), projectId);
      if (next !== null) await this.wakeBy(next);
    } catch (error) {
      logWarn(this.env, { where: "WebhookDispatcher.alarm", projectId }, error);
      await this.wakeBy(Date.now() + RETRY_AFTER_ERROR_MS);
    }
  }

  /** A kick that came in while this alarm ran set an earlier alarm: keep it. */
  private async wakeBy(at: number): Promise<void> {
    const scheduled = await this.ctx.storage.getAlarm();
    if (scheduled === null || scheduled > at) await this.ctx.storage.setAlarm(at);
  }
}
