// Addresses of the SPA's pages, built in one place.
export const environmentPath = (id: string) => `/environments/${encodeURIComponent(id)}`;
export const queryPath = (envId: string, hash: string) => `${environmentPath(envId)}/queries/${encodeURIComponent(hash)}`;
export const runPath = (id: string) => `/ci/${encodeURIComponent(id)}`;
