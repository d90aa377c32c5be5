import { LoginError } from "../errors.js";

/**
 * The two Cognito operations the login needs, posted to the gateway's Cognito-compatible endpoint
 * (`<baseUrl>/auth/`), the operation chosen by `X-Amz-Target` as Cognito does.
 */
export type CognitoTarget = "InitiateAuth" | "RespondToAuthChallenge";

export interface AuthenticationResult {
  IdToken: string;
  AccessToken: string;
  RefreshToken?: string;
  ExpiresIn: number;
  TokenType: string;
}

export interface CognitoAnswer {
  AuthenticationResult?: AuthenticationResult;
  ChallengeName?: string;
  ChallengeParameters?: Record<string, string>;
  Session?: string;
}

export async function callCognito(
  baseUrl: string,
  target: CognitoTarget,
  body: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<CognitoAnswer> {
  let response: Response;
  try {
    response = await fetch(`${baseUrl.replace(/\/+$/, "")}/auth/`, {
      method: "POST",
      headers: {
        "content-type": "application/x-amz-json-1.1",
        "x-amz-target": `AWSCognitoIdentityProviderService.${target}`,
      },
      body: JSON.stringify(body),
      signal,
    });
  } catch (error) {
    throw new LoginError(
      "NetworkError",
      error instanceof Error ? error.message : String(error),
      undefined,
      error,
    );
  }
  const text = await response.text();
  let answer: Record<string, unknown> = {};
  try {
    answer = text ? JSON.parse(text) : {};
  } catch {
    // Not JSON (a proxy's error page): reported below by status.
  }
  if (!response.ok) {
    const code = typeof answer.__type === "string" ? answer.__type : `HTTP_${response.status}`;
    const message = typeof answer.message === "string" ? answer.message : response.statusText;
    throw new LoginError(code, message, response.status);
  }
  return answer as CognitoAnswer;
}
