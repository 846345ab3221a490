import { type DingtalkConfig, dingtalkChannel } from "./dingtalk.js";
import { type EmailConfig, emailChannel } from "./email.js";
import { type FeishuConfig, feishuChannel } from "./feishu.js";
import { type PagerdutyConfig, pagerdutyChannel } from "./pagerduty.js";
import { type SlackConfig, slackChannel } from "./slack.js";
import { type SmsConfig, smsChannel } from "./sms.js";
import type { AlertChannel, AlertMessage, ChannelContext, ChannelType, OutgoingRequest } from "./types.js";
import { type WebhookConfig, webhookChannel } from "./webhook.js";
import { type WecomConfig, wecomChannel } from "./wecom.js";

/** Each channel type's config, as its schema parses it. */
export interface ChannelConfigs {
  email: EmailConfig;
  webhook: WebhookConfig;
  slack: SlackConfig;
  dingtalk: DingtalkConfig;
  feishu: FeishuConfig;
  wecom: WecomConfig;
  pagerduty: PagerdutyConfig;
  sms: SmsConfig;
}

/** Every channel type, checked exhaustive by the compiler: a new type fails to build until it is listed. */
export const alertChannels: { [T in ChannelType]: AlertChannel<ChannelConfigs[T]> } = {
  email: emailChannel,
  webhook: webhookChannel,
  slack: slackChannel,
  dingtalk: dingtalkChannel,
  feishu: feishuChannel,
  wecom: wecomChannel,
  pagerduty: pagerdutyChannel,
  sms: smsChannel,
};

export const channelTypes = Object.keys(alertChannels) as ChannelType[];

/**
 * Builds a message for a stored config of any type: the config is parsed by its type's schema first
 * (a ZodError if it no longer fits), so the caller never holds a config typed by hand.
 */
export function buildAlert(
  type: ChannelType,
  config: unknown,
  message: AlertMessage,
  ctx: ChannelContext,
): OutgoingRequest[] {
  const channel = alertChannels[type] as AlertChannel<unknown>;
  return channel.build(message, channel.configSchema.parse(config), ctx);
}
