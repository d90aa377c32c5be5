// Verifies a gateway token with jsonwebtoken + jwks-rsa as their READMEs configure them, in its own
// Node process: jwks-rsa require()s jose, an ES module, which Node loads natively but Jest's module
// registry cannot.
// Usage: node verify-with-jsonwebtoken.mjs <jwks-uri> <issuer> <audience> < token
// Prints {"claims": ...} and exits 0, or {"refused": <error name>, "message": ...} and exits 1.
import jwt from "jsonwebtoken";
import jwksClient from "jwks-rsa";

const [jwksUri, issuer, audience] = process.argv.slice(2);
let token = "";
for await (const chunk of process.stdin) token += chunk;
// A fresh key set for each call: the key a token names is looked up in the JWKS as it is now.
const keys = jwksClient({ jwksUri, cache: false });
const getKey = (header, callback) => {
  keys.getSigningKey(header.kid).then(
    (key) => callback(null, key.getPublicKey()),
    (err) => callback(err),
  );
};
jwt.verify(token.trim(), getKey, { algorithms: ["RS256"], issuer, audience }, (err, claims) => {
  process.stdout.write(JSON.stringify(err ? { refused: err.name, message: err.message } : { claims }));
  process.exitCode = err ? 1 : 0;
});
