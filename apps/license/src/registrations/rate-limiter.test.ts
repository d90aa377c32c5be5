import { describe, expect, it } from "@jest/globals";
import { clientAddressBucket } from "./rate-limiter.js";

describe("client address buckets", () => {
  it("counts IPv4 clients per address", () => {
    expect(clientAddressBucket("203.0.113.7")).toBe("203.0.113.7");
  });

  it("treats IPv4-mapped IPv6 addresses as IPv4", () => {
    expect(clientAddressBucket("::ffff:203.0.113.7")).toBe("203.0.113.7");
  });

  it("counts IPv6 clients per /64", () => {
    expect(clientAddressBucket("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(clientAddressBucket("2001:db8:1:2:bbbb:cccc:dddd:eeee")).toBe("2001:db8:1:2::/64");
    expect(clientAddressBucket("2001:0db8::5")).toBe("2001:db8:0:0::/64");
    expect(clientAddressBucket("::1")).toBe("0:0:0:0::/64");
  });
});
