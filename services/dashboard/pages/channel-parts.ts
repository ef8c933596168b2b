// What the alert channel pages share: a digest schedule as a person reads it, and a delivery as
// the channel's log shows it (the JSON view the management API answers, core/alerts/alert-management.ts).
import type { listChannelDeliveries } from '../../core/alerts/alert-management.ts';
import type { DigestSchedule } from '../../core/alerts/alert-rules.ts';

export type ChannelDelivery = Awaited<ReturnType<typeof listChannelDeliveries>>['deliveries'][number];

export const hourText = (hour: number) => `${String(hour).padStart(2, '0')}:00`;

export function digestText(digest: DigestSchedule | null): string {
  return digest ? `Every day at ${hourText(digest.hour)} (${digest.timeZone})` : 'Off';
}
