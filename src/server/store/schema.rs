//! The versioned schema. `PRAGMA user_version` records how many migrations a
//! file has had; each migration runs once, in its own transaction.

use rusqlite::Connection;

/// Migrations in order; never edit one that has shipped, add another.
const MIGRATIONS: &[&str] = &[
    r#"
CREATE TABLE organizations (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    slug        TEXT NOT NULL,
    created_at  TEXT NOT NULL
);

CREATE TABLE projects (
    id               INTEGER PRIMARY KEY,
    organization_id  TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    name             TEXT NOT NULL,
    created_at       TEXT NOT NULL
);

CREATE TABLE users (
    id                       INTEGER PRIMARY KEY,
    uuid                     TEXT NOT NULL UNIQUE,
    distinct_id              TEXT NOT NULL,
    first_name               TEXT NOT NULL,
    last_name                TEXT NOT NULL DEFAULT '',
    email                    TEXT NOT NULL UNIQUE COLLATE NOCASE,
    is_email_verified        INTEGER NOT NULL DEFAULT 1,
    is_active                INTEGER NOT NULL DEFAULT 1,
    hedgehog_config          TEXT,
    current_organization_id  TEXT REFERENCES organizations(id) ON DELETE SET NULL,
    current_project_id       INTEGER REFERENCES projects(id) ON DELETE SET NULL,
    created_at               TEXT NOT NULL
);

CREATE TABLE organization_members (
    id               TEXT PRIMARY KEY,
    organization_id  TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    user_id          INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    level            INTEGER NOT NULL,
    joined_at        TEXT NOT NULL,
    updated_at       TEXT NOT NULL,
    is_2fa_enabled   INTEGER NOT NULL DEFAULT 0,
    has_social_auth  INTEGER NOT NULL DEFAULT 0,
    UNIQUE (organization_id, user_id)
);
CREATE INDEX organization_members_order ON organization_members (organization_id, joined_at, id);

CREATE TABLE dashboards (
    id          INTEGER PRIMARY KEY,
    project_id  INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    name        TEXT NOT NULL
);
CREATE INDEX dashboards_project ON dashboards (project_id, id);

CREATE TABLE insights (
    id          INTEGER PRIMARY KEY,
    project_id  INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    name        TEXT NOT NULL
);
CREATE INDEX insights_project ON insights (project_id, id);

CREATE TABLE roles (
    id                          TEXT PRIMARY KEY,
    organization_id             TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    name                        TEXT NOT NULL,
    -- the name folded for the case-insensitive uniqueness rule
    name_key                    TEXT NOT NULL,
    feature_flags_access_level  INTEGER NOT NULL,
    created_at                  TEXT NOT NULL,
    created_by                  INTEGER REFERENCES users(id) ON DELETE SET NULL
);
CREATE UNIQUE INDEX roles_name ON roles (organization_id, name_key);
CREATE INDEX roles_order ON roles (organization_id, created_at, id);

CREATE TABLE role_memberships (
    id                      TEXT PRIMARY KEY,
    role_id                 TEXT NOT NULL REFERENCES roles(id) ON DELETE CASCADE,
    organization_member_id  TEXT NOT NULL REFERENCES organization_members(id) ON DELETE CASCADE,
    user_id                 INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    joined_at               TEXT NOT NULL,
    updated_at              TEXT NOT NULL,
    UNIQUE (role_id, user_id)
);
CREATE INDEX role_memberships_order ON role_memberships (role_id, joined_at, id);
CREATE INDEX role_memberships_member ON role_memberships (organization_member_id);

CREATE TABLE subscriptions (
    id                  INTEGER PRIMARY KEY,
    project_id          INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    dashboard_id        INTEGER REFERENCES dashboards(id) ON DELETE SET NULL,
    insight_id          INTEGER REFERENCES insights(id) ON DELETE SET NULL,
    target_type         TEXT NOT NULL,
    target_value        TEXT NOT NULL,
    frequency           TEXT NOT NULL,
    interval            INTEGER NOT NULL,
    byweekday           TEXT,   -- JSON array of weekday names, or NULL
    bysetpos            INTEGER,
    count               INTEGER,
    start_date          TEXT NOT NULL,
    until_date          TEXT,
    created_at          TEXT NOT NULL,
    created_by          INTEGER REFERENCES users(id) ON DELETE SET NULL,
    deleted             INTEGER NOT NULL DEFAULT 0,
    title               TEXT,
    summary             TEXT NOT NULL,
    next_delivery_date  TEXT,
    invite_message      TEXT
);
-- One index per list ordering; each expression matches the ORDER BY terms
-- exactly (nulls last ascending, as PostgreSQL sorts), so that a page at any
-- offset is an index-only scan in either direction.
CREATE INDEX subscriptions_created ON subscriptions (project_id, deleted, created_at, id);
CREATE INDEX subscriptions_next ON subscriptions
    (project_id, deleted, ifnull(next_delivery_date, '9999'), id);
CREATE INDEX subscriptions_title ON subscriptions
    (project_id, deleted, (title IS NULL), title COLLATE NOCASE, id);
-- The list filters, newest first within each.
CREATE INDEX subscriptions_by_target ON subscriptions (project_id, deleted, target_type, created_at, id);
CREATE INDEX subscriptions_by_insight ON subscriptions (project_id, deleted, insight_id, created_at, id);
CREATE INDEX subscriptions_by_dashboard ON subscriptions (project_id, deleted, dashboard_id, created_at, id);
-- For ON DELETE SET NULL of a dashboard or an insight.
CREATE INDEX subscriptions_insight ON subscriptions (insight_id);
CREATE INDEX subscriptions_dashboard ON subscriptions (dashboard_id);

CREATE TABLE personal_api_keys (
    id                    TEXT PRIMARY KEY,
    user_id               INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    label                 TEXT NOT NULL,
    -- "sha256$" and the hex digest of the key; the key itself is never stored
    secure_value          TEXT NOT NULL UNIQUE,
    mask_value            TEXT NOT NULL,
    scopes                TEXT NOT NULL,  -- JSON array
    scoped_organizations  TEXT,           -- JSON array or NULL
    scoped_teams          TEXT,           -- JSON array or NULL
    created_at            TEXT NOT NULL,
    last_used_at          TEXT
);
"#,
    // 2: today's PostHog: the role new members get.
    r#"
ALTER TABLE organizations ADD COLUMN default_role_id TEXT REFERENCES roles(id) ON DELETE SET NULL;
"#,
    // 3: today's subscriptions, Slack integrations, dashboard tiles, deliveries.
    r#"
CREATE TABLE integrations (
    id            INTEGER PRIMARY KEY,
    project_id    INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    kind          TEXT NOT NULL,
    display_name  TEXT NOT NULL,
    config        TEXT NOT NULL,  -- JSON object
    errors        TEXT NOT NULL DEFAULT '',  -- '' while it works; 'TOKEN_REVOKED' once revoked
    created_at    TEXT NOT NULL,
    created_by    INTEGER REFERENCES users(id) ON DELETE SET NULL
);
CREATE INDEX integrations_project ON integrations (project_id, created_at, id);

CREATE TABLE slack_channels (
    integration_id  INTEGER NOT NULL REFERENCES integrations(id) ON DELETE CASCADE,
    id              TEXT NOT NULL,
    name            TEXT NOT NULL,
    is_private      INTEGER NOT NULL DEFAULT 0,
    is_member       INTEGER NOT NULL DEFAULT 1,
    is_ext_shared   INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (integration_id, id)
);

CREATE TABLE dashboard_tiles (
    id            INTEGER PRIMARY KEY,
    dashboard_id  INTEGER NOT NULL REFERENCES dashboards(id) ON DELETE CASCADE,
    insight_id    INTEGER REFERENCES insights(id) ON DELETE CASCADE,
    y             INTEGER NOT NULL,
    x             INTEGER NOT NULL
);
CREATE INDEX dashboard_tiles_dashboard ON dashboard_tiles (dashboard_id, y, x);

ALTER TABLE insights ADD COLUMN short_id TEXT;

ALTER TABLE subscriptions ADD COLUMN enabled INTEGER NOT NULL DEFAULT 1;
ALTER TABLE subscriptions ADD COLUMN integration_id INTEGER REFERENCES integrations(id) ON DELETE SET NULL;
ALTER TABLE subscriptions ADD COLUMN dashboard_export_insights TEXT NOT NULL DEFAULT '[]';
ALTER TABLE subscriptions ADD COLUMN prompt TEXT;
ALTER TABLE subscriptions ADD COLUMN summary_enabled INTEGER NOT NULL DEFAULT 0;
ALTER TABLE subscriptions ADD COLUMN summary_prompt_guide TEXT NOT NULL DEFAULT '';
-- The delivery task asks for the earliest due delivery.
CREATE INDEX subscriptions_due ON subscriptions (next_delivery_date) WHERE enabled = 1 AND deleted = 0;

CREATE TABLE deliveries (
    id                 TEXT PRIMARY KEY,
    subscription_id    INTEGER NOT NULL REFERENCES subscriptions(id) ON DELETE CASCADE,
    trigger_type       TEXT NOT NULL,
    scheduled_at       TEXT,
    target_type        TEXT NOT NULL,
    target_value       TEXT NOT NULL,
    exported_asset_ids TEXT NOT NULL DEFAULT '[]',
    recipient_results  TEXT NOT NULL,  -- JSON list
    status             TEXT NOT NULL,
    error              TEXT,           -- JSON object or NULL
    created_at         TEXT NOT NULL,
    finished_at        TEXT,
    change_summary     TEXT
);
CREATE INDEX deliveries_order ON deliveries (subscription_id, created_at DESC, id DESC);
"#,
    // 4: today's search (title, insight name and derived name, dashboard
    // name; term by term) through a trigram index kept in step by triggers,
    // and the list filters today's PostHog adds.
    r#"
ALTER TABLE insights ADD COLUMN derived_name TEXT;
-- Today's user object and member list (posthog.md 7).
ALTER TABLE users ADD COLUMN role_at_organization TEXT;
ALTER TABLE users ADD COLUMN last_login TEXT;

-- rowid = the subscription's id; `names` holds the names a search looks
-- in, one a line, so that no term (which holds no white space) spans two.
CREATE VIRTUAL TABLE subscription_search USING fts5(names, tokenize = 'trigram');

CREATE VIEW subscription_search_source (id, names) AS
    SELECT s.id,
           ifnull(s.title, '') || char(10) || ifnull(i.name, '') || char(10)
               || ifnull(i.derived_name, '') || char(10) || ifnull(d.name, '')
    FROM subscriptions s
         LEFT JOIN insights i ON i.id = s.insight_id
         LEFT JOIN dashboards d ON d.id = s.dashboard_id;

-- While `search_deferred` holds a row, new subscriptions are left out of
-- the index, for a bulk load to index at once (one statement indexes
-- 100,000 rows several times faster than 100,000 triggers do).
CREATE TABLE search_deferred (after_id INTEGER NOT NULL);

INSERT INTO subscription_search (rowid, names) SELECT id, names FROM subscription_search_source;

CREATE TRIGGER subscription_search_insert AFTER INSERT ON subscriptions
    WHEN NOT EXISTS (SELECT 1 FROM search_deferred) BEGIN
    INSERT INTO subscription_search (rowid, names)
        SELECT id, names FROM subscription_search_source WHERE id = new.id;
END;
CREATE TRIGGER subscription_search_update AFTER UPDATE OF title, insight_id, dashboard_id ON subscriptions BEGIN
    DELETE FROM subscription_search WHERE rowid = old.id;
    INSERT INTO subscription_search (rowid, names)
        SELECT id, names FROM subscription_search_source WHERE id = new.id;
END;
CREATE TRIGGER subscription_search_delete AFTER DELETE ON subscriptions BEGIN
    DELETE FROM subscription_search WHERE rowid = old.id;
END;
CREATE TRIGGER subscription_search_insight AFTER UPDATE OF name, derived_name ON insights BEGIN
    DELETE FROM subscription_search
        WHERE rowid IN (SELECT id FROM subscriptions WHERE insight_id = new.id);
    INSERT INTO subscription_search (rowid, names)
        SELECT id, names FROM subscription_search_source
        WHERE id IN (SELECT id FROM subscriptions WHERE insight_id = new.id);
END;
CREATE TRIGGER subscription_search_dashboard AFTER UPDATE OF name ON dashboards BEGIN
    DELETE FROM subscription_search
        WHERE rowid IN (SELECT id FROM subscriptions WHERE dashboard_id = new.id);
    INSERT INTO subscription_search (rowid, names)
        SELECT id, names FROM subscription_search_source
        WHERE id IN (SELECT id FROM subscriptions WHERE dashboard_id = new.id);
END;

CREATE INDEX subscriptions_by_creator ON subscriptions (project_id, deleted, created_by, created_at, id);
"#,
    // 5: what PostHog added since (posthog.md 15-2 and 15-3): an AI
    // report's window, and the dashboards and insights an AI summary reads,
    // stored as their ids (`[{"dashboard_id": N} | {"insight_id": N}]`).
    r#"
ALTER TABLE subscriptions ADD COLUMN ai_prompt_config TEXT NOT NULL DEFAULT '{}';
ALTER TABLE subscriptions ADD COLUMN contexts TEXT NOT NULL DEFAULT '[]';
"#,
    // 6: the members' search (first name, last name, e-mail, each a
    // substring in any case) through a trigram index kept by triggers, so
    // that searching 50,000 people reads the few that match, not all.
    r#"
CREATE VIRTUAL TABLE user_search USING fts5(first_name, last_name, email, tokenize = 'trigram');
INSERT INTO user_search (rowid, first_name, last_name, email) SELECT id, first_name, last_name, email FROM users;
CREATE TRIGGER user_search_insert AFTER INSERT ON users BEGIN
    INSERT INTO user_search (rowid, first_name, last_name, email)
        VALUES (new.id, new.first_name, new.last_name, new.email);
END;
CREATE TRIGGER user_search_update AFTER UPDATE OF first_name, last_name, email ON users BEGIN
    DELETE FROM user_search WHERE rowid = old.id;
    INSERT INTO user_search (rowid, first_name, last_name, email)
        VALUES (new.id, new.first_name, new.last_name, new.email);
END;
CREATE TRIGGER user_search_delete AFTER DELETE ON users BEGIN
    DELETE FROM user_search WHERE rowid = old.id;
END;
"#,
    // 7: whether a membership is a person's (an active user, not a bot),
    // kept on the membership by triggers, so that the members list counts
    // and pages 50,000 people from one index without reading each user.
    r#"
ALTER TABLE organization_members ADD COLUMN is_person INTEGER NOT NULL DEFAULT 1;
UPDATE organization_members SET is_person = (
    SELECT u.is_active = 1 AND u.email NOT LIKE '%@posthogbot.user' FROM users u WHERE u.id = user_id);
CREATE TRIGGER member_is_person_insert AFTER INSERT ON organization_members BEGIN
    UPDATE organization_members SET is_person = (
        SELECT u.is_active = 1 AND u.email NOT LIKE '%@posthogbot.user' FROM users u WHERE u.id = new.user_id)
    WHERE id = new.id;
END;
CREATE TRIGGER member_is_person_user AFTER UPDATE OF is_active, email ON users BEGIN
    UPDATE organization_members
        SET is_person = (new.is_active = 1 AND new.email NOT LIKE '%@posthogbot.user')
    WHERE user_id = new.id;
END;
CREATE INDEX organization_members_people ON organization_members (organization_id, is_person, joined_at, id);
"#,
    // 8: the members' count and searches at 50,000 without reading rows:
    // how many people each organization has, kept by triggers; and the
    // memberships by user with what a search sorts and filters by, so that
    // the few a search finds are counted and ordered from the index alone.
    r#"
CREATE TABLE organization_people (
    organization_id  TEXT PRIMARY KEY REFERENCES organizations(id) ON DELETE CASCADE,
    people           INTEGER NOT NULL
);
INSERT INTO organization_people (organization_id, people)
    SELECT id, (SELECT COUNT(*) FROM organization_members m WHERE m.organization_id = o.id AND m.is_person = 1)
    FROM organizations o;
CREATE TRIGGER organization_people_insert AFTER INSERT ON organization_members BEGIN
    INSERT INTO organization_people (organization_id, people) VALUES (new.organization_id, new.is_person)
        ON CONFLICT (organization_id) DO UPDATE SET people = people + new.is_person;
END;
CREATE TRIGGER organization_people_delete AFTER DELETE ON organization_members BEGIN
    UPDATE organization_people SET people = people - old.is_person WHERE organization_id = old.organization_id;
END;
CREATE TRIGGER organization_people_update AFTER UPDATE OF is_person ON organization_members BEGIN
    UPDATE organization_people SET people = people - old.is_person + new.is_person
        WHERE organization_id = new.organization_id;
END;
CREATE INDEX organization_members_by_user ON organization_members (organization_id, user_id, is_person, joined_at, id);
"#,
    // 9: access control (posthog.md 16): rules on a project, its resources
    // and its objects, for a member, a role or everyone, going with the
    // member or role they name; each project's Terraform lock; an
    // organization's resolution mode (NULL: the server's default) and
    // whether its members see each other; who
    // created each dashboard and insight; notebooks and feature flags, as
    // far as rules need them.
    r#"
CREATE TABLE access_controls (
    id                      TEXT PRIMARY KEY,
    project_id              INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    resource                TEXT NOT NULL,
    resource_id             TEXT,
    organization_member_id  TEXT REFERENCES organization_members(id) ON DELETE CASCADE,
    role_id                 TEXT REFERENCES roles(id) ON DELETE CASCADE,
    access_level            TEXT NOT NULL,
    created_by              INTEGER REFERENCES users(id) ON DELETE SET NULL,
    created_at              TEXT NOT NULL,
    updated_at              TEXT NOT NULL,
    managed_by              TEXT,
    managed_at              TEXT
);
-- One rule per target and subject: writes are upserts on it.
CREATE UNIQUE INDEX access_controls_target ON access_controls
    (project_id, resource, ifnull(resource_id, ''), ifnull(organization_member_id, ''), ifnull(role_id, ''));
CREATE INDEX access_controls_member ON access_controls (organization_member_id);
CREATE INDEX access_controls_role ON access_controls (role_id);

CREATE TABLE project_access_settings (
    project_id                    INTEGER PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
    lock_terraform_managed_rules  INTEGER NOT NULL DEFAULT 0
);

ALTER TABLE organizations ADD COLUMN uses_most_specific_access_resolution INTEGER;
ALTER TABLE organizations ADD COLUMN members_can_see_org_members INTEGER NOT NULL DEFAULT 1;
ALTER TABLE dashboards ADD COLUMN created_by INTEGER REFERENCES users(id) ON DELETE SET NULL;
ALTER TABLE insights ADD COLUMN created_by INTEGER REFERENCES users(id) ON DELETE SET NULL;

CREATE TABLE notebooks (
    id                TEXT PRIMARY KEY,
    short_id          TEXT NOT NULL,
    project_id        INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    title             TEXT,
    created_by        INTEGER REFERENCES users(id) ON DELETE SET NULL,
    created_at        TEXT NOT NULL,
    last_modified_at  TEXT NOT NULL,
    deleted           INTEGER NOT NULL DEFAULT 0,
    UNIQUE (project_id, short_id)
);
CREATE INDEX notebooks_order ON notebooks (project_id, last_modified_at, id);

CREATE TABLE feature_flags (
    id          INTEGER PRIMARY KEY,
    project_id  INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    key         TEXT NOT NULL,
    name        TEXT NOT NULL DEFAULT '',
    active      INTEGER NOT NULL DEFAULT 1,
    deleted     INTEGER NOT NULL DEFAULT 0,
    created_by  INTEGER REFERENCES users(id) ON DELETE SET NULL,
    created_at  TEXT NOT NULL,
    UNIQUE (project_id, key)
);
"#,
    // 10: lists walked by offset at any depth (issue 33): the creator's
    // e-mail kept on the subscription (by triggers; a bulk load fills it at
    // its end, as it indexes for search), so that ordering by it is an
    // index's order and a page at any offset starts from a remembered
    // position rather than sorting every row.
    r#"
ALTER TABLE subscriptions ADD COLUMN creator_email TEXT;
UPDATE subscriptions SET creator_email = (SELECT email FROM users WHERE id = created_by);
CREATE TRIGGER subscription_creator_insert AFTER INSERT ON subscriptions
    WHEN new.created_by IS NOT NULL AND NOT EXISTS (SELECT 1 FROM search_deferred) BEGIN
    UPDATE subscriptions SET creator_email = (SELECT email FROM users WHERE id = new.created_by)
        WHERE id = new.id;
END;
CREATE TRIGGER subscription_creator_update AFTER UPDATE OF created_by ON subscriptions BEGIN
    UPDATE subscriptions SET creator_email = (SELECT email FROM users WHERE id = new.created_by)
        WHERE id = new.id;
END;
CREATE TRIGGER subscription_creator_email AFTER UPDATE OF email ON users BEGIN
    UPDATE subscriptions SET creator_email = new.email WHERE created_by = new.id;
END;
CREATE INDEX subscriptions_created_by ON subscriptions (created_by);
CREATE INDEX subscriptions_creator_email ON subscriptions
    (project_id, deleted, (creator_email IS NULL), creator_email, id);
"#,
];

/// Brings the file up to the newest schema.
pub fn migrate(connection: &mut Connection) -> anyhow::Result<()> {
    let applied: i64 = connection.pragma_query_value(None, "user_version", |row| row.get(0))?;
    let applied = usize::try_from(applied).unwrap_or(0);
    if applied > MIGRATIONS.len() {
        anyhow::bail!(
            "the database was written by a newer orgdeck (schema version {applied}, this one knows {}); use a newer orgdeck or another --db file",
            MIGRATIONS.len()
        );
    }
    for (index, migration) in MIGRATIONS.iter().enumerate().skip(applied) {
        let transaction = connection.transaction()?;
        transaction.execute_batch(migration)?;
        transaction.pragma_update(None, "user_version", i64::try_from(index + 1)?)?;
        transaction.commit()?;
    }
    Ok(())
}
