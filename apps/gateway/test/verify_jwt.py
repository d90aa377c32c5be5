"""Verifies a gateway token as a Python service would: PyJWT (Debian's python3-jwt) with PyJWKClient.

Usage: /usr/bin/python3 verify_jwt.py <jwks-uri> <issuer> <audience> < token
Prints {"claims": ...} and exits 0, or {"refused": <PyJWT error class>, "message": ...} and exits 1.
"""

import json
import sys

import jwt


def main() -> int:
    jwks_uri, issuer, audience = sys.argv[1:4]
    token = sys.stdin.read().strip()
    # A fresh key set for each call: the key a token names is looked up in the JWKS as it is now.
    client = jwt.PyJWKClient(jwks_uri, cache_keys=False)
    try:
        key = client.get_signing_key_from_jwt(token)
        claims = jwt.decode(token, key.key, algorithms=["RS256"], audience=audience, issuer=issuer)
    except jwt.PyJWTError as err:
        print(json.dumps({"refused": type(err).__name__, "message": str(err)}))
        return 1
    print(json.dumps({"claims": claims}))
    return 0


sys.exit(main())
