// A certified OpenID provider (panva's oidc-provider) on loopback, for the
// single sign-on tests: one confidential client, the test accounts given on
// the command line, and its own development login and consent pages (any
// password is taken). PUT /test/accounts/ID with a JSON body sets an
// account's claims; DELETE removes the account, as a person who left.
// POST /test/rotate-keys signs from then on with a new key (a new kid), as
// a provider rotating its keys does: its JWKS then lists the new key only.
//
//   node server.mjs PORT REDIRECT_URI CLIENT_SECRET ACCOUNTS_JSON
//
// It prints "ready ISSUER" once it listens.
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import http from 'node:http';
import Provider from 'oidc-provider';

const [port, redirectURI, secret, accountsJSON] = process.argv.slice(2);
const issuer = `http://127.0.0.1:${port}`;
const accounts = new Map(Object.entries(JSON.parse(accountsJSON)));

// A new signing key, with a kid of its own.
function signingKey() {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { ...privateKey.export({ format: 'jwk' }), kid: randomUUID(), use: 'sig', alg: 'RS256' };
}

function newProvider(key) {
  const provider = new Provider(issuer, {
    jwks: { keys: [key] },
    clients: [{
      client_id: 'auxilia',
      client_secret: secret,
      redirect_uris: [redirectURI],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    }],
    pkce: { required: () => true },
    claims: { openid: ['sub'], email: ['email'], profile: ['name', 'groups'] },
    conformIdTokenClaims: false,
    issueRefreshToken: async () => true,
    ttl: { IdToken: 60, AccessToken: 60, RefreshToken: 3600, Session: 3600, Grant: 3600, Interaction: 600 },
    async findAccount(ctx, id) {
      if (!accounts.has(id)) return undefined;
      return { accountId: id, claims: async () => ({ sub: id, ...accounts.get(id) }) };
    },
  });
  provider.proxy = false;
  return provider.callback();
}

let oidc = newProvider(signingKey());
http.createServer((req, res) => {
  if (req.url === '/test/rotate-keys' && req.method === 'POST') {
    // Its sign-ins, grants and refresh tokens were the old instance's: people sign in again.
    oidc = newProvider(signingKey());
    res.writeHead(204).end();
    return;
  }
  const m = req.url.match(/^\/test\/accounts\/([^/?]+)$/);
  if (!m) return oidc(req, res);
  const id = decodeURIComponent(m[1]);
  if (req.method === 'DELETE') {
    accounts.delete(id);
    res.writeHead(204).end();
    return;
  }
  let body = '';
  req.on('data', (c) => { body += c; });
  req.on('end', () => {
    accounts.set(id, JSON.parse(body));
    res.writeHead(204).end();
  });
}).listen(Number(port), '127.0.0.1', () => {
  console.log(`ready ${issuer}`);
});
