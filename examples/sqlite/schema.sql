-- The application's own tables.
CREATE TABLE folders (id text PRIMARY KEY, parent_id text);
CREATE INDEX folders_parent ON folders (parent_id);
CREATE TABLE documents (id integer PRIMARY KEY, folder_id text NOT NULL, title text NOT NULL);
CREATE INDEX documents_folder ON documents (folder_id);
CREATE TABLE folder_roles (user_id text NOT NULL, role text NOT NULL, folder_id text NOT NULL);
CREATE INDEX folder_roles_user ON folder_roles (user_id, folder_id);
INSERT INTO folders VALUES ('root', NULL), ('eng', 'root'), ('eng/specs', 'eng'), ('sales', 'root');
INSERT INTO documents VALUES (1, 'root', 'handbook'), (2, 'eng/specs', 'api spec'), (3, 'sales', 'price list'), (4, 'eng', 'roadmap');
INSERT INTO folder_roles VALUES ('ann', 'editor', 'eng'), ('Ann ', 'viewer', 'sales'), ('bob', 'viewer', 'root');
