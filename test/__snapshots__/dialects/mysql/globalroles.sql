-- authorize
with
  polar_c0(arg0, arg1, arg2) as (SELECT * FROM globalroles_b1),
  polar_c1(arg0, arg1) as (SELECT * FROM globalroles_b0)
 select exists (select 1 from polar_c0 as f0 where convert(cast(f0.arg0 as char(512) character set utf8mb4) using binary) = cast('ada' as binary) and f0.arg1 in (cast('member' as binary), cast('lead' as binary)) and f0.arg2 = cast('core' as binary)) or exists (select 1 from polar_c1 as f0 where convert(cast(f0.arg0 as char(512) character set utf8mb4) using binary) = cast('ada' as binary) and f0.arg1 in (cast('support' as binary), cast('superuser' as binary))) as allowed;

-- actions
with
  polar_c0(arg0, arg1, arg2) as (SELECT * FROM globalroles_b1),
  polar_c1(arg0, arg1) as (SELECT * FROM globalroles_b0)
 select convert(min(d.actions) using utf8mb4) as actions from (select 'view' as actions from polar_c0 as f0 where convert(cast(f0.arg0 as char(512) character set utf8mb4) using binary) = cast('ada' as binary) and f0.arg1 in (cast('member' as binary), cast('lead' as binary)) and f0.arg2 = cast('core' as binary) union all select 'view' as actions from polar_c1 as f0 where convert(cast(f0.arg0 as char(512) character set utf8mb4) using binary) = cast('ada' as binary) and f0.arg1 in (cast('support' as binary), cast('superuser' as binary)) union all select 'manage' as actions from polar_c0 as f0 where convert(cast(f0.arg0 as char(512) character set utf8mb4) using binary) = cast('ada' as binary) and f0.arg1 = cast('lead' as binary) and f0.arg2 = cast('core' as binary) union all select 'manage' as actions from polar_c1 as f0 where convert(cast(f0.arg0 as char(512) character set utf8mb4) using binary) = cast('ada' as binary) and f0.arg1 = cast('superuser' as binary)) as d group by cast(d.actions as binary);

-- list
cast(t.id as binary) in (with
  polar_c0(arg0, arg1, arg2) as (SELECT * FROM globalroles_b1),
  polar_c1(arg0, arg1) as (SELECT * FROM globalroles_b0)
 select f0.arg2 from polar_c0 as f0 where convert(cast(f0.arg0 as char(512) character set utf8mb4) using binary) = cast('ada' as binary) and f0.arg1 in (cast('member' as binary), cast('lead' as binary)) and f0.arg2 is not null union all select t.id where exists (select 1 from polar_c1 as f0 where convert(cast(f0.arg0 as char(512) character set utf8mb4) using binary) = cast('ada' as binary) and f0.arg1 in (cast('support' as binary), cast('superuser' as binary))));
