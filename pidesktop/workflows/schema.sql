-- Pi Workflows state, schema 1 (spec 000). Run once, in one transaction, on a
-- new file. Every table is STRICT. Times are integer milliseconds since the
-- Unix epoch; digests are 32-byte SHA-256 values; ids are opaque text.
-- Opening code compares this text's SHA-256 and the resulting schema shape
-- with the file, so any edit here is a new, incompatible schema.

-- Schema and projects ---------------------------------------------------------

CREATE TABLE schema_meta (
  key TEXT PRIMARY KEY NOT NULL,
  value TEXT NOT NULL
) STRICT;

CREATE TABLE resources (
  resource_id TEXT PRIMARY KEY NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('project', 'workflow_definition', 'run', 'decision', 'controller',
    'effect', 'channel', 'notification', 'turn_intent', 'session_segment')),
  revision INTEGER NOT NULL CHECK (revision >= 1),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;

CREATE TABLE projects (
  project_id TEXT PRIMARY KEY NOT NULL,
  resource_id TEXT NOT NULL UNIQUE REFERENCES resources(resource_id),
  canonical_path TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL
) STRICT;

-- Content ---------------------------------------------------------------------

CREATE TABLE blobs (
  digest BLOB PRIMARY KEY NOT NULL CHECK (length(digest) = 32),
  media_type TEXT NOT NULL CHECK (media_type IN ('application/json', 'text/plain;charset=utf-8')),
  byte_length INTEGER NOT NULL CHECK (byte_length >= 0),
  content BLOB NOT NULL CHECK (length(content) = byte_length),
  created_at INTEGER NOT NULL
) STRICT;

CREATE TRIGGER blobs_are_immutable BEFORE UPDATE ON blobs
BEGIN SELECT RAISE(ABORT, 'blobs are immutable'); END;

-- Shared lifecycle ------------------------------------------------------------

CREATE TABLE leases (
  resource_id TEXT PRIMARY KEY NOT NULL REFERENCES resources(resource_id),
  generation INTEGER NOT NULL CHECK (generation >= 1),
  owner_id TEXT,
  token_sha256 BLOB CHECK (token_sha256 IS NULL OR length(token_sha256) = 32),
  acquired_at INTEGER,
  expires_at INTEGER,
  released_at INTEGER,
  CHECK ((owner_id IS NULL) = (token_sha256 IS NULL)),
  CHECK ((owner_id IS NULL) = (acquired_at IS NULL)),
  CHECK ((owner_id IS NULL) = (expires_at IS NULL))
) STRICT;

CREATE INDEX leases_held ON leases(expires_at) WHERE owner_id IS NOT NULL;

CREATE TRIGGER leases_generation_only_grows BEFORE UPDATE OF generation ON leases
WHEN NEW.generation < OLD.generation
BEGIN SELECT RAISE(ABORT, 'a lease generation never decreases'); END;

CREATE TRIGGER leases_new_owner_new_generation BEFORE UPDATE OF token_sha256 ON leases
WHEN NEW.token_sha256 IS NOT NULL AND NEW.token_sha256 IS NOT OLD.token_sha256
  AND NEW.generation <= OLD.generation
BEGIN SELECT RAISE(ABORT, 'a new lease owner receives a new generation'); END;

CREATE TRIGGER leases_are_never_deleted BEFORE DELETE ON leases
BEGIN SELECT RAISE(ABORT, 'a lease row keeps its generation forever'); END;

CREATE TABLE events (
  event_id INTEGER PRIMARY KEY,
  resource_id TEXT NOT NULL REFERENCES resources(resource_id),
  revision INTEGER NOT NULL CHECK (revision >= 1),
  event_type TEXT NOT NULL,
  operation TEXT NOT NULL,
  actor_class TEXT NOT NULL CHECK (actor_class IN ('control', 'run_owner', 'controller_owner',
    'channel_owner', 'human', 'model')),
  actor_id TEXT,
  lease_generation INTEGER,
  payload_digest BLOB NOT NULL REFERENCES blobs(digest),
  committed_at INTEGER NOT NULL
) STRICT;

CREATE INDEX events_by_resource ON events(resource_id, event_id);

CREATE TRIGGER events_are_immutable BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'events are immutable'); END;

CREATE TRIGGER events_are_never_deleted BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'events are immutable'); END;

-- Workflows -------------------------------------------------------------------

CREATE TABLE workflow_definitions (
  definition_id TEXT PRIMARY KEY NOT NULL,
  resource_id TEXT NOT NULL UNIQUE REFERENCES resources(resource_id),
  project_id TEXT NOT NULL REFERENCES projects(project_id),
  name TEXT NOT NULL,
  version INTEGER NOT NULL CHECK (version >= 1),
  definition_digest BLOB NOT NULL REFERENCES blobs(digest),
  created_at INTEGER NOT NULL,
  UNIQUE (project_id, name, version)
) STRICT;

CREATE TABLE runs (
  run_id TEXT PRIMARY KEY NOT NULL,
  resource_id TEXT NOT NULL UNIQUE REFERENCES resources(resource_id),
  project_id TEXT NOT NULL REFERENCES projects(project_id),
  definition_id TEXT NOT NULL REFERENCES workflow_definitions(definition_id),
  origin TEXT NOT NULL CHECK (origin IN ('queue', 'direct', 'controller_child', 'continuation')),
  parent_run_id TEXT REFERENCES runs(run_id),
  status TEXT NOT NULL CHECK (status IN ('pending', 'running', 'waiting',
    'succeeded', 'failed', 'cancelled', 'continued')),
  input_digest BLOB NOT NULL REFERENCES blobs(digest),
  output_digest BLOB REFERENCES blobs(digest),
  error_digest BLOB REFERENCES blobs(digest),
  cancel_requested_at INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  finished_at INTEGER,
  CHECK ((status IN ('succeeded', 'failed', 'cancelled', 'continued')) = (finished_at IS NOT NULL)),
  CHECK (origin <> 'continuation' OR parent_run_id IS NOT NULL)
) STRICT;

CREATE INDEX runs_by_project ON runs(project_id, status);
CREATE INDEX runs_by_parent ON runs(parent_run_id) WHERE parent_run_id IS NOT NULL;

CREATE TRIGGER runs_terminal_outcome_is_final BEFORE UPDATE OF status ON runs
WHEN OLD.status IN ('succeeded', 'failed', 'cancelled', 'continued') AND NEW.status IS NOT OLD.status
BEGIN SELECT RAISE(ABORT, 'a terminal run outcome is final'); END;

CREATE TABLE run_bindings (
  run_id TEXT NOT NULL REFERENCES runs(run_id),
  name TEXT NOT NULL,
  binding_kind TEXT NOT NULL CHECK (binding_kind IN ('input', 'pi_session', 'channel', 'controller')),
  value_digest BLOB NOT NULL REFERENCES blobs(digest),
  bound_at INTEGER NOT NULL,
  PRIMARY KEY (run_id, name)
) STRICT;

CREATE TABLE run_queue (
  run_id TEXT PRIMARY KEY NOT NULL REFERENCES runs(run_id),
  project_id TEXT NOT NULL REFERENCES projects(project_id),
  pi_session_id TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'parked', 'settled')),
  outcome TEXT CHECK (outcome IN ('succeeded', 'failed', 'cancelled', 'continued')),
  enqueued_at INTEGER NOT NULL,
  reserved_at INTEGER,
  settled_at INTEGER,
  CHECK ((status = 'settled') = (outcome IS NOT NULL)),
  CHECK ((status = 'settled') = (settled_at IS NOT NULL))
) STRICT;

CREATE UNIQUE INDEX run_queue_one_reservation_per_session ON run_queue(pi_session_id)
WHERE status IN ('queued', 'running');
CREATE INDEX run_queue_by_project ON run_queue(project_id, status, enqueued_at);

CREATE TABLE node_attempts (
  attempt_id TEXT PRIMARY KEY NOT NULL,
  run_id TEXT NOT NULL REFERENCES runs(run_id),
  node_id TEXT NOT NULL,
  attempt_no INTEGER NOT NULL CHECK (attempt_no >= 1),
  output_kind TEXT NOT NULL CHECK (output_kind IN ('submitted', 'assistant_message', 'non_agent')),
  status TEXT NOT NULL CHECK (status IN ('running', 'interrupted', 'succeeded', 'failed', 'cancelled')),
  max_chars INTEGER CHECK (max_chars IS NULL OR max_chars >= 1),
  lease_generation INTEGER NOT NULL,
  prompt_digest BLOB REFERENCES blobs(digest),
  output_digest BLOB REFERENCES blobs(digest),
  error_digest BLOB REFERENCES blobs(digest),
  receipt_digest BLOB REFERENCES blobs(digest),
  pi_session_id TEXT,
  prompt_entry_id TEXT,
  response_entry_id TEXT,
  started_at INTEGER NOT NULL,
  finished_at INTEGER,
  UNIQUE (run_id, node_id, attempt_no),
  CHECK (output_kind = 'assistant_message' OR max_chars IS NULL),
  CHECK ((status = 'succeeded' AND output_kind = 'assistant_message') = (receipt_digest IS NOT NULL)),
  CHECK ((status IN ('succeeded', 'failed', 'cancelled')) = (finished_at IS NOT NULL))
) STRICT;

CREATE UNIQUE INDEX node_attempts_one_active_per_run ON node_attempts(run_id) WHERE status = 'running';

CREATE TABLE workflow_updates (
  run_id TEXT NOT NULL REFERENCES runs(run_id),
  seq INTEGER NOT NULL CHECK (seq >= 1),
  attempt_id TEXT REFERENCES node_attempts(attempt_id),
  update_type TEXT NOT NULL CHECK (length(update_type) BETWEEN 1 AND 64),
  body_digest BLOB NOT NULL REFERENCES blobs(digest),
  created_at INTEGER NOT NULL,
  PRIMARY KEY (run_id, seq)
) STRICT;

-- Session capture -------------------------------------------------------------

CREATE TABLE session_segments (
  segment_id TEXT PRIMARY KEY NOT NULL,
  resource_id TEXT NOT NULL UNIQUE REFERENCES resources(resource_id),
  run_id TEXT NOT NULL REFERENCES runs(run_id),
  attempt_id TEXT REFERENCES node_attempts(attempt_id),
  pi_session_id TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('open', 'closed')),
  first_entry_id TEXT,
  last_entry_id TEXT,
  opened_at INTEGER NOT NULL,
  closed_at INTEGER,
  CHECK ((status = 'closed') = (closed_at IS NOT NULL))
) STRICT;

CREATE TABLE session_entries (
  segment_id TEXT NOT NULL REFERENCES session_segments(segment_id),
  seq INTEGER NOT NULL CHECK (seq >= 1),
  entry_id TEXT NOT NULL,
  parent_entry_id TEXT,
  entry_type TEXT NOT NULL,
  payload_digest BLOB NOT NULL REFERENCES blobs(digest),
  captured_at INTEGER NOT NULL,
  PRIMARY KEY (segment_id, seq),
  UNIQUE (segment_id, entry_id)
) STRICT;

CREATE TABLE session_events (
  segment_id TEXT NOT NULL REFERENCES session_segments(segment_id),
  seq INTEGER NOT NULL CHECK (seq >= 1),
  event_type TEXT NOT NULL,
  entry_id TEXT,
  payload_digest BLOB NOT NULL REFERENCES blobs(digest),
  captured_at INTEGER NOT NULL,
  PRIMARY KEY (segment_id, seq)
) STRICT;

-- Human decisions -------------------------------------------------------------

CREATE TABLE human_decisions (
  decision_id TEXT PRIMARY KEY NOT NULL,
  resource_id TEXT NOT NULL UNIQUE REFERENCES resources(resource_id),
  run_id TEXT NOT NULL REFERENCES runs(run_id),
  attempt_id TEXT REFERENCES node_attempts(attempt_id),
  protected INTEGER NOT NULL CHECK (protected IN (0, 1)),
  request_digest BLOB NOT NULL REFERENCES blobs(digest),
  default_response_digest BLOB REFERENCES blobs(digest),
  deadline_at INTEGER,
  status TEXT NOT NULL CHECK (status IN ('open', 'accepted', 'cancelled')),
  created_at INTEGER NOT NULL,
  CHECK (default_response_digest IS NULL OR deadline_at IS NOT NULL)
) STRICT;

CREATE UNIQUE INDEX human_decisions_one_open_per_run ON human_decisions(run_id) WHERE status = 'open';

CREATE TABLE human_decision_submissions (
  submission_id TEXT PRIMARY KEY NOT NULL,
  decision_id TEXT NOT NULL REFERENCES human_decisions(decision_id),
  actor_class TEXT NOT NULL CHECK (actor_class IN ('human', 'model')),
  actor_id TEXT NOT NULL,
  channel_id TEXT REFERENCES channels(channel_id),
  response_digest BLOB NOT NULL REFERENCES blobs(digest),
  submitted_at INTEGER NOT NULL,
  UNIQUE (decision_id, actor_id)
) STRICT;

CREATE TABLE human_decision_resolutions (
  decision_id TEXT PRIMARY KEY NOT NULL REFERENCES human_decisions(decision_id),
  outcome TEXT NOT NULL CHECK (outcome IN ('answered', 'timeout_default', 'cancelled', 'expired')),
  submission_id TEXT REFERENCES human_decision_submissions(submission_id),
  response_digest BLOB REFERENCES blobs(digest),
  actor_class TEXT NOT NULL,
  reason TEXT,
  resolved_at INTEGER NOT NULL,
  CHECK ((outcome = 'answered') = (submission_id IS NOT NULL)),
  CHECK ((outcome IN ('answered', 'timeout_default')) = (response_digest IS NOT NULL))
) STRICT;

CREATE UNIQUE INDEX human_decision_resolutions_one_winner ON human_decision_resolutions(submission_id)
WHERE submission_id IS NOT NULL;

CREATE TRIGGER human_decision_resolutions_are_immutable BEFORE UPDATE ON human_decision_resolutions
BEGIN SELECT RAISE(ABORT, 'a decision resolution is immutable'); END;

CREATE TRIGGER human_decision_resolutions_are_never_deleted BEFORE DELETE ON human_decision_resolutions
BEGIN SELECT RAISE(ABORT, 'a decision resolution is immutable'); END;

CREATE TABLE continuations (
  continuation_id TEXT PRIMARY KEY NOT NULL,
  decision_id TEXT NOT NULL UNIQUE REFERENCES human_decision_resolutions(decision_id),
  parent_run_id TEXT NOT NULL REFERENCES runs(run_id),
  run_id TEXT NOT NULL UNIQUE REFERENCES runs(run_id),
  status TEXT NOT NULL CHECK (status IN ('admitted', 'reserved')),
  admitted_at INTEGER NOT NULL,
  reserved_at INTEGER,
  CHECK ((status = 'reserved') = (reserved_at IS NOT NULL))
) STRICT;

-- Controllers -----------------------------------------------------------------

CREATE TABLE controller_resources (
  controller_id TEXT PRIMARY KEY NOT NULL,
  resource_id TEXT NOT NULL UNIQUE REFERENCES resources(resource_id),
  project_id TEXT NOT NULL REFERENCES projects(project_id),
  name TEXT NOT NULL,
  spec_digest BLOB NOT NULL REFERENCES blobs(digest),
  phase TEXT NOT NULL CHECK (phase IN ('active', 'deleting', 'deleted')),
  status_digest BLOB REFERENCES blobs(digest),
  delete_requested_at INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (project_id, name),
  CHECK ((phase = 'active') = (delete_requested_at IS NULL))
) STRICT;

CREATE TABLE controller_finalizers (
  controller_id TEXT NOT NULL REFERENCES controller_resources(controller_id),
  finalizer TEXT NOT NULL,
  added_at INTEGER NOT NULL,
  PRIMARY KEY (controller_id, finalizer)
) STRICT;

CREATE TABLE controller_queue (
  controller_id TEXT NOT NULL REFERENCES controller_resources(controller_id),
  item_key TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'done', 'failed')),
  attempts INTEGER NOT NULL CHECK (attempts >= 0),
  payload_digest BLOB NOT NULL REFERENCES blobs(digest),
  retry_at INTEGER,
  lease_generation INTEGER,
  enqueued_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (controller_id, item_key)
) STRICT;

CREATE INDEX controller_queue_ready ON controller_queue(controller_id, status, retry_at);

CREATE TABLE controller_workflows (
  controller_id TEXT NOT NULL REFERENCES controller_resources(controller_id),
  child_key TEXT NOT NULL,
  run_id TEXT NOT NULL UNIQUE REFERENCES runs(run_id),
  request_digest BLOB NOT NULL CHECK (length(request_digest) = 32),
  lease_generation INTEGER NOT NULL,
  started_at INTEGER NOT NULL,
  PRIMARY KEY (controller_id, child_key)
) STRICT;

-- Effects ---------------------------------------------------------------------

CREATE TABLE effects (
  effect_id TEXT PRIMARY KEY NOT NULL,
  resource_id TEXT NOT NULL UNIQUE REFERENCES resources(resource_id),
  source_resource_id TEXT NOT NULL REFERENCES resources(resource_id),
  source_revision INTEGER NOT NULL CHECK (source_revision >= 1),
  effect_type TEXT NOT NULL,
  idempotency_key TEXT NOT NULL,
  request_digest BLOB NOT NULL CHECK (length(request_digest) = 32),
  payload_digest BLOB NOT NULL REFERENCES blobs(digest),
  owner_scope TEXT NOT NULL REFERENCES resources(resource_id),
  delivery TEXT NOT NULL CHECK (delivery IN ('local', 'external')),
  status TEXT NOT NULL CHECK (status IN ('pending', 'running', 'succeeded', 'failed', 'ambiguous')),
  attempt_count INTEGER NOT NULL CHECK (attempt_count >= 0),
  retry_at INTEGER,
  result_digest BLOB REFERENCES blobs(digest),
  error_digest BLOB REFERENCES blobs(digest),
  external_ref TEXT,
  settled_at INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  CHECK ((status IN ('succeeded', 'failed')) = (settled_at IS NOT NULL)),
  CHECK (delivery = 'external' OR status <> 'ambiguous')
) STRICT;

CREATE UNIQUE INDEX effects_one_deterministic_key ON effects(owner_scope, effect_type, idempotency_key);
CREATE INDEX effects_unsettled ON effects(owner_scope, status, retry_at)
WHERE status IN ('pending', 'running', 'ambiguous');

CREATE TABLE effect_attempts (
  effect_id TEXT NOT NULL REFERENCES effects(effect_id),
  attempt_no INTEGER NOT NULL CHECK (attempt_no >= 1),
  lease_generation INTEGER NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('running', 'succeeded', 'failed', 'ambiguous', 'interrupted')),
  started_at INTEGER NOT NULL,
  finished_at INTEGER,
  error_digest BLOB REFERENCES blobs(digest),
  external_ref TEXT,
  PRIMARY KEY (effect_id, attempt_no),
  CHECK ((status = 'running') = (finished_at IS NULL))
) STRICT;

CREATE UNIQUE INDEX effect_attempts_one_running ON effect_attempts(effect_id) WHERE status = 'running';

-- Pi delivery -----------------------------------------------------------------

CREATE TABLE notifications (
  notification_id TEXT PRIMARY KEY NOT NULL,
  resource_id TEXT NOT NULL UNIQUE REFERENCES resources(resource_id),
  project_id TEXT NOT NULL REFERENCES projects(project_id),
  run_id TEXT REFERENCES runs(run_id),
  pi_session_id TEXT,
  level TEXT NOT NULL CHECK (level IN ('info', 'warning', 'error')),
  body_digest BLOB NOT NULL REFERENCES blobs(digest),
  status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'dismissed')),
  created_at INTEGER NOT NULL,
  settled_at INTEGER,
  CHECK ((status = 'pending') = (settled_at IS NULL))
) STRICT;

CREATE TABLE turn_intents (
  intent_id TEXT PRIMARY KEY NOT NULL,
  resource_id TEXT NOT NULL UNIQUE REFERENCES resources(resource_id),
  project_id TEXT NOT NULL REFERENCES projects(project_id),
  run_id TEXT REFERENCES runs(run_id),
  pi_session_id TEXT NOT NULL,
  prompt_digest BLOB NOT NULL REFERENCES blobs(digest),
  status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'cancelled')),
  not_before INTEGER,
  created_at INTEGER NOT NULL,
  settled_at INTEGER,
  CHECK ((status = 'pending') = (settled_at IS NULL))
) STRICT;

CREATE INDEX turn_intents_pending ON turn_intents(pi_session_id, not_before) WHERE status = 'pending';

-- Channels --------------------------------------------------------------------

CREATE TABLE channels (
  channel_id TEXT PRIMARY KEY NOT NULL,
  resource_id TEXT NOT NULL UNIQUE REFERENCES resources(resource_id),
  project_id TEXT REFERENCES projects(project_id),
  provider TEXT NOT NULL,
  channel_ref TEXT NOT NULL,
  config_name TEXT,
  status TEXT NOT NULL CHECK (status IN ('active', 'disabled')),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (provider, channel_ref)
) STRICT;

CREATE TABLE channel_cursors (
  channel_id TEXT NOT NULL REFERENCES channels(channel_id),
  cursor_name TEXT NOT NULL,
  cursor_value TEXT NOT NULL,
  lease_generation INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (channel_id, cursor_name)
) STRICT;

CREATE TABLE channel_inbox (
  inbox_id TEXT PRIMARY KEY NOT NULL,
  channel_id TEXT NOT NULL REFERENCES channels(channel_id),
  external_id TEXT NOT NULL,
  sender_id TEXT,
  payload_digest BLOB NOT NULL REFERENCES blobs(digest),
  decision_id TEXT REFERENCES human_decisions(decision_id),
  status TEXT NOT NULL CHECK (status IN ('received', 'applied', 'ignored')),
  lease_generation INTEGER NOT NULL,
  received_at INTEGER NOT NULL,
  settled_at INTEGER,
  UNIQUE (channel_id, external_id),
  CHECK ((status = 'received') = (settled_at IS NULL))
) STRICT;

CREATE TABLE channel_messages (
  message_id TEXT PRIMARY KEY NOT NULL,
  channel_id TEXT NOT NULL REFERENCES channels(channel_id),
  -- Deferred: the write contract inserts follow-up effects after the domain row.
  effect_id TEXT NOT NULL UNIQUE REFERENCES effects(effect_id) DEFERRABLE INITIALLY DEFERRED,
  run_id TEXT REFERENCES runs(run_id),
  decision_id TEXT REFERENCES human_decisions(decision_id),
  notification_id TEXT REFERENCES notifications(notification_id),
  status TEXT NOT NULL CHECK (status IN ('pending', 'sent', 'failed', 'ambiguous')),
  external_ref TEXT,
  receipt_digest BLOB REFERENCES blobs(digest),
  created_at INTEGER NOT NULL,
  settled_at INTEGER,
  CHECK ((status IN ('sent', 'failed')) = (settled_at IS NOT NULL))
) STRICT;

CREATE TABLE channel_message_parts (
  message_id TEXT NOT NULL REFERENCES channel_messages(message_id),
  part_no INTEGER NOT NULL CHECK (part_no >= 1),
  text_digest BLOB NOT NULL REFERENCES blobs(digest),
  PRIMARY KEY (message_id, part_no)
) STRICT;
