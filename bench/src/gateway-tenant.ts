import { BENCH_SECRETS } from "./bench-platform.js";

const PASSWORD = "bench-password-0123456789";

/** Sends one request and answers its JSON body; throws on any non-2xx answer. */
export async function json(url: string, init: RequestInit): Promise<Record<string, unknown>> {
  const res = await fetch(url, init);
  const text = await res.text();
  if (!res.ok) throw new Error(`${init.method ?? "GET"} ${url} answered ${res.status}: ${text}`);
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

/** A tenant and an app client on the benchmark gateway, through its admin API. */
export async function createTenant(gateway: string): Promise<{ tenantId: string; clientId: string }> {
  const tenantId = `bench-${Date.now().toString(36)}`;
  await json(`${gateway}/admin/tenants`, {
    method: "POST",
    headers: adminHeaders(),
    body: JSON.stringify({ tenantId, name: "Bench" }),
  });
  const { clientId } = await json(`${gateway}/admin/tenants/${tenantId}/clients`, {
    method: "POST",
    headers: adminHeaders(),
    body: JSON.stringify({ name: "bench" }),
  });
  return { tenantId, clientId: clientId as string };
}

/** Creates a user of the tenant and logs it in (`POST /auth/`, Cognito InitiateAuth); answers its IdToken. */
export async function userToken(
  gateway: string,
  tenant: { tenantId: string; clientId: string },
  role: "server" | "admin",
): Promise<string> {
  const username = `${tenant.tenantId}-${role}`;
  await json(`${gateway}/admin/tenants/${tenant.tenantId}/users`, {
    method: "POST",
    headers: adminHeaders(),
    body: JSON.stringify({ username, password: PASSWORD, role }),
  });
  const answer = await json(`${gateway}/auth/`, {
    method: "POST",
    headers: {
      "content-type": "application/x-amz-json-1.1",
      "x-amz-target": "AWSCognitoIdentityProviderService.InitiateAuth",
    },
    body: JSON.stringify({
      AuthFlow: "USER_PASSWORD_AUTH",
      AuthParameters: { USERNAME: username, PASSWORD },
      ClientId: tenant.clientId,
    }),
  });
  return (answer.AuthenticationResult as { IdToken: string }).IdToken;
}

function adminHeaders(): Record<string, string> {
  return { "content-type": "application/json", authorization: `Bearer ${BENCH_SECRETS.adminToken}` };
}
