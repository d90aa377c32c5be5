import type { MailMessage } from "./mailer.js";

export interface LicenseMailInput {
  to: string;
  name: string;
  licenseKey: string;
  edition: string;
  /** Where a matchmaker validates the key (LICENSE_URL). */
  licenseUrl: string;
  /** A known address: the key replaces the previous one once it is used. */
  reissued: boolean;
}

/** The mail that carries a key: the only place outside the first admin answer where a key appears. */
export function licenseMail(input: LicenseMailInput): MailMessage {
  const intro = input.reissued
    ? [
        "You (or someone using your address) registered again, so here is a new key for your existing",
        "Arena license. Your current key keeps working until this one is used for the first time; from",
        "then on only this key works. If you did not ask for it, ignore this mail: nothing changes.",
      ]
    : ["Thank you for registering. Here is your Arena license key."];
  const text = [
    `Hello ${input.name},`,
    "",
    ...intro,
    "",
    `  License key: ${input.licenseKey}`,
    `  Edition:     ${input.edition}`,
    "",
    "Start the matchmaker with:",
    "",
    `  LICENSE_KEY=${input.licenseKey}`,
    `  LICENSE_URL=${input.licenseUrl}`,
    "",
    "Keep the key secret: anyone who has it can run the matchmaker under your license.",
    "",
    "-- Arena Licensing",
    "",
  ].join("\n");
  return {
    to: input.to,
    subject: input.reissued ? "Your new Arena license key" : "Your Arena license key",
    text,
  };
}
