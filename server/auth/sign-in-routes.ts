// Sign-in through the identity provider: GET /auth/login, GET /auth/callback, POST /auth/logout,
// GET /auth/config. STUB until implemented.
import express from 'express';
import type { Services } from '../trpc';

export function createSignInRouter(_services: Services) {
  return express.Router();
}
