// @vitest-environment jsdom
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { formatRelative } from '../lib/time';
import { RelativeTime } from './RelativeTime';

afterEach(cleanup);

describe('relative times', () => {
  const now = new Date('2026-11-22T12:00:00Z');
  it('reads as people say it', () => {
    expect(formatRelative('2026-11-22T09:00:00Z', now)).toBe('3 hours ago');
    expect(formatRelative('2026-11-22T11:59:30Z', now)).toBe('just now');
    expect(formatRelative('2026-11-22T11:55:00Z', now)).toBe('5 minutes ago');
    expect(formatRelative('2026-11-19T12:00:00Z', now)).toBe('3 days ago');
    expect(formatRelative('2026-08-22T12:00:00Z', now)).toBe('3 months ago');
    expect(formatRelative('2026-11-22T15:00:00Z', now)).toBe('in 3 hours');
  });

  it('shows the exact time on hover', () => {
    const value = new Date(Date.now() - 3 * 3600_000).toISOString();
    render(<RelativeTime value={value} />);
    const time = screen.getByText('3 hours ago');
    expect(time.tagName).toBe('TIME');
    expect(time.getAttribute('datetime')).toBe(value);
    expect(time.getAttribute('title')).toMatch(new RegExp(String(new Date(value).getFullYear())));
  });
});
