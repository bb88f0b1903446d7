// DNS rebinding: a page on attacker.example can point its own name at 127.0.0.1 and so become
// "same origin" with this server; its requests still say Host: attacker.example. Every request is
// checked against the names this server is meant to be reached by, before any route (API, tRPC and
// the SPA's files alike): loopback names, the address it listens on, and ALLOWED_HOSTS. IP literals
// other than those are refused too, so a server behind a LAN address or a proxy is reached only
// under the names its operator listed. Any port is accepted: the name is what rebinding forges.
import type { RequestHandler } from 'express';
import type { Config } from './config';
import { sendError } from '../shared/errors';

const WILDCARD_ADDRESSES = new Set(['', '0.0.0.0', '::', '[::]']);

/** The name part of a Host header, lower case: "LocalHost:3000" -> "localhost", "[::1]:3000" -> "[::1]"; undefined when malformed. */
function hostnameOf(header: string): string | undefined {
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::\d{1,5})?$/i.exec(header.trim());
  return match?.[1]!.toLowerCase();
}

/** Loopback by construction: localhost and *.localhost (RFC 6761, resolved to loopback by browsers), 127.0.0.0/8, [::1]. */
function isLoopbackName(name: string): boolean {
  if (name === 'localhost' || name.endsWith('.localhost') || name === '[::1]') return true;
  const octets = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(name);
  return !!octets && octets.slice(1).every((o) => Number(o) <= 255);
}

function allowedHostNames(config: Pick<Config, 'host' | 'allowedHosts'>): Set<string> {
  const names = new Set<string>();
  const bound = config.host.trim().toLowerCase();
  if (!WILDCARD_ADDRESSES.has(bound)) names.add(bound.includes(':') && !bound.startsWith('[') ? `[${bound}]` : bound);
  for (const entry of config.allowedHosts) {
    const name = hostnameOf(entry);
    if (name) names.add(name);
  }
  return names;
}

function isAllowedHost(header: string | undefined, allowed: Set<string>): boolean {
  const name = header === undefined ? undefined : hostnameOf(header);
  return !!name && (isLoopbackName(name) || allowed.has(name));
}

export function hostGuard(config: Pick<Config, 'host' | 'allowedHosts'>): RequestHandler {
  const allowed = allowedHostNames(config);
  return (req, res, next) => {
    if (isAllowedHost(req.headers.host, allowed)) return next();
    const shown = JSON.stringify((req.headers.host ?? '').slice(0, 100));
    sendError(res, {
      status: 421,
      code: 'host_not_allowed',
      message: `Host ${shown} is not one this server answers to (it checks Host against DNS rebinding). Add the name to ALLOWED_HOSTS to reach it under that name.`,
    });
  };
}
