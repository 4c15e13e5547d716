-- The application's own tables, on the server's default collation (MariaDB: utf8mb4_general_ci,
-- which calls 'ann' and 'Ann ' equal; the emitted SQL compares bytes).
CREATE TABLE folders (id varchar(64) PRIMARY KEY, parent_id varchar(64) NULL, KEY (parent_id));
CREATE TABLE documents (id int PRIMARY KEY, folder_id varchar(64) NOT NULL, title varchar(200) NOT NULL, KEY (folder_id));
CREATE TABLE folder_roles (user_id varchar(64) NOT NULL, role varchar(32) NOT NULL, folder_id varchar(64) NOT NULL, KEY (user_id, folder_id));
INSERT INTO folders VALUES ('root', NULL), ('eng', 'root'), ('eng/specs', 'eng'), ('sales', 'root');
INSERT INTO documents VALUES (1, 'root', 'handbook'), (2, 'eng/specs', 'api spec'), (3, 'sales', 'price list'), (4, 'eng', 'roadmap');
INSERT INTO folder_roles VALUES ('ann', 'editor', 'eng'), ('Ann ', 'viewer', 'sales'), ('bob', 'viewer', 'root');
