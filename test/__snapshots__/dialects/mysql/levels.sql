-- authorize
select false as allowed;

-- actions
select convert(cast(null as char(512) character set utf8mb4) using binary) as actions where false;

-- list
t.id in (select t.id where false);
