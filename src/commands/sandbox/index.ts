// `bookdist sandbox ...`: run the local service and drive its testing controls. Each verb's
// declaration (./<module>.cmd.ts) is tied to the module that runs it, loaded only when it runs.
import { group, runs } from '../define.js';
import { summaryOf } from '../manifest.js';
import { WORKSPACE_LIMITS } from './options.js';
import { serve } from './serve.cmd.js';
import { credentials } from './credentials.cmd.js';
import { openapi } from './openapi.cmd.js';
import { reset } from './reset.cmd.js';
import { catalogueLoad } from './catalogue.cmd.js';
import { clockAdvance, clockShow } from './clock.cmd.js';
import { usage } from './usage.cmd.js';
import { redeem } from './redeem.cmd.js';
import { outbox } from './outbox.cmd.js';
import { requestsList, requestsShow, requestsTail, requestsVerify, requestsClear } from './requests.cmd.js';
import { fixturesApply } from './fixtures.cmd.js';
import { snapshotSave, snapshotLoad, snapshotList, snapshotRm, snapshotDiff } from './snapshot.cmd.js';
import { workspaceCreate, workspaceList, workspaceRm } from './workspace.cmd.js';

export const commands = [
  group({
    name: 'sandbox',
    summary: summaryOf('sandbox'),
    description:
      'The sandbox is a local implementation of the whole service on SQLite. bookdist uses it when ' +
      'no profile is configured; partners can run it with `bookdist sandbox serve` and point any ' +
      'client at it. The controls (clock, usage, redeem, outbox) work on its database, so they ' +
      'reach every sandbox process that uses the same file.',
    commands: [
      runs(serve, () => import('./serve.js')),
      runs(credentials, () => import('./credentials.js')),
      runs(openapi, () => import('./openapi.js')),
      runs(reset, () => import('./reset.js')),
      group({
        name: 'catalogue',
        summary: 'bring your own catalogue: load ONIX 3.0 or CSV titles into the sandbox',
        description:
          "Loads a publisher's titles (identifiers, metadata, digital prices) into the sandbox database, under publishers " +
          'the partner account controls, so that an integration can be tried on the books it will sell.',
        commands: [runs(catalogueLoad, () => import('./catalogue.js'))],
      }),
      group({
        name: 'clock',
        summary: 'show or move the sandbox clock (expirations, refund windows)',
        description:
          'The sandbox keeps its own notion of now (real time plus an offset stored in its database), so ' +
          'rental expirations and refund windows can be tested without waiting.',
        commands: [
          runs(clockAdvance, async () => (await import('./clock.js')).advance),
          runs(clockShow, async () => (await import('./clock.js')).show),
        ],
      }),
      runs(usage, () => import('./usage.js')),
      runs(redeem, () => import('./redeem.js')),
      runs(outbox, () => import('./outbox.js')),
      group({
        name: 'requests',
        summary: 'the request journal: list, show, tail, verify (assert in CI), clear',
        description:
          'Every request a sandbox serves is kept in its database (time, method, path, auth, account, status, duration, redacted ' +
          'bodies, what it changed, the e-mails it caused), so a test can assert what its code sent: `sandbox requests verify`.',
        commands: [
          runs(requestsList, async () => (await import('./requests.js')).list),
          runs(requestsShow, async () => (await import('./requests.js')).show),
          runs(requestsTail, async () => (await import('./requests.js')).tail),
          runs(requestsVerify, async () => (await import('./requests.js')).verify),
          runs(requestsClear, async () => (await import('./requests.js')).clear),
        ],
      }),
      group({
        name: 'fixtures',
        summary: 'set the sandbox up for a test from a file of named steps',
        description:
          'A fixture is a JSON or YAML file of named steps (operations of the service and sandbox controls) that puts the ' +
          'sandbox in the state a test needs: a user who bought a book 20 days ago and read 12% of it, a held book, a code batch.',
        commands: [runs(fixturesApply, () => import('./fixtures.js'))],
      }),
      group({
        name: 'snapshot',
        summary: 'save, load, list, remove and compare snapshots of the sandbox database',
        description:
          "Snapshots are copies of the sandbox database made with SQLite's online backup: save the state a test suite starts from, " +
          'load it before each test (atomically, also into a running sandbox), and diff two states table by table.',
        commands: [
          runs(snapshotSave, async () => (await import('./snapshot.js')).save),
          runs(snapshotLoad, async () => (await import('./snapshot.js')).load),
          runs(snapshotList, async () => (await import('./snapshot.js')).list),
          runs(snapshotRm, async () => (await import('./snapshot.js')).rm),
          runs(snapshotDiff, async () => (await import('./snapshot.js')).diff),
        ],
      }),
      group({
        name: 'workspace',
        summary: 'isolated workspaces of a running sandbox, one per parallel CI job: create, list, rm',
        description:
          'A workspace is a copy of the sandbox database (from a snapshot or the seed) served by the running sandbox on a port of ' +
          "its own, with credentials of its own: parallel jobs, each in its own workspace, never see each other's orders. " +
          WORKSPACE_LIMITS,
        commands: [
          runs(workspaceCreate, async () => (await import('./workspace.js')).create),
          runs(workspaceList, async () => (await import('./workspace.js')).list),
          runs(workspaceRm, async () => (await import('./workspace.js')).rm),
        ],
      }),
    ],
  }),
];
