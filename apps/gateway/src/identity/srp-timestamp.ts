const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/**
 * `ddd MMM D HH:mm:ss UTC YYYY`, as amazon-cognito-identity-js writes TIMESTAMP (`Tue Nov 26
 * 9:05:03 UTC 2026` has no leading zero on the day; Python clients write one, which is accepted).
 */
const TIMESTAMP = /^([A-Z][a-z]{2}) ([A-Z][a-z]{2}) (\d{1,2}) (\d{2}):(\d{2}):(\d{2}) UTC (\d{4})$/;

/** The instant a TIMESTAMP names, or undefined when it is not one (a wrong weekday, 31 Feb, ...). */
export function parseSrpTimestamp(text: string): Date | undefined {
  const match = TIMESTAMP.exec(text);
  if (!match) return undefined;
  const [, weekday, monthName, day, hours, minutes, seconds, year] = match as unknown as string[];
  const month = MONTHS.indexOf(monthName as string);
  const fields = [year, day, hours, minutes, seconds].map(Number) as [number, number, number, number, number];
  const date = new Date(Date.UTC(fields[0], month, fields[1], fields[2], fields[3], fields[4]));
  const exact =
    month >= 0 &&
    date.getUTCFullYear() === fields[0] &&
    date.getUTCMonth() === month &&
    date.getUTCDate() === fields[1] &&
    date.getUTCHours() === fields[2] &&
    date.getUTCMinutes() === fields[3] &&
    date.getUTCSeconds() === fields[4] &&
    WEEKDAYS[date.getUTCDay()] === weekday;
  return exact ? date : undefined;
}
