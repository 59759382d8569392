#!/usr/bin/env node
// Prints a bearer token that Turnstile's dev and test profiles accept: signed (RS256) by local/dev-keys/private.pem,
// with the issuer and audience of local/dev-identity.env. Dev only: production verifies its provider's tokens.
//   node local/token.js --sub c-42 --roles customer [--tier elite] [--ttl 3600]
//   node local/token.js --sub agent-1 --roles staff
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const args = { sub: null, roles: 'customer', tier: null, ttl: '3600' };
for (let i = 2; i < process.argv.length; i += 2) {
  const name = process.argv[i].replace(/^--/, '');
  if (!(name in args) || process.argv[i + 1] === undefined) {
    console.error(`usage: node local/token.js --sub SUBJECT [--roles customer,staff] [--tier elite] [--ttl SECONDS]`);
    process.exit(2);
  }
  args[name] = process.argv[i + 1];
}
if (!args.sub) {
  console.error('--sub is required');
  process.exit(2);
}

const env = Object.fromEntries(fs.readFileSync(path.join(__dirname, 'dev-identity.env'), 'utf8')
  .split('\n').filter((line) => /^[A-Z_]+=/.test(line)).map((line) => line.split(/=(.*)/s).slice(0, 2)));
const now = Math.floor(Date.now() / 1000);
const claims = {
  iss: env.TURNSTILE_IDENTITY_ISSUER,
  aud: env.TURNSTILE_IDENTITY_AUDIENCE,
  sub: args.sub,
  upn: args.sub,
  groups: args.roles.split(',').filter(Boolean),
  iat: now,
  exp: now + Number(args.ttl),
  jti: crypto.randomUUID(),
};
if (args.tier) {
  claims.tier = args.tier;
}
const part = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');
const unsigned = `${part({ alg: 'RS256', typ: 'JWT' })}.${part(claims)}`;
const key = fs.readFileSync(path.join(__dirname, 'dev-keys', 'private.pem'));
process.stdout.write(`${unsigned}.${crypto.sign('sha256', Buffer.from(unsigned), key).toString('base64url')}\n`);
