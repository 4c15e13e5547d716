-- authorize
with
  polar_c0(arg0, arg1, arg2) as (SELECT * FROM extends_b0)
 select exists (select 1 from polar_c0 as f0 where f0.arg0 = cast('ada' as binary) and f0.arg1 in (cast('reader' as binary), cast('admin' as binary)) and f0.arg2 = cast('f1' as binary)) as allowed;

-- actions
with
  polar_c0(arg0, arg1, arg2) as (SELECT * FROM extends_b0)
 select convert(min(d.actions) using utf8mb4) as actions from (select 'read' as actions from polar_c0 as f0 where f0.arg0 = cast('ada' as binary) and f0.arg1 in (cast('reader' as binary), cast('admin' as binary)) and f0.arg2 = cast('f1' as binary)) as d group by cast(d.actions as binary);

-- list
cast(t.id as binary) in (with
  polar_c0(arg0, arg1, arg2) as (SELECT * FROM extends_b0)
 select f0.arg2 from polar_c0 as f0 where f0.arg0 = cast('ada' as binary) and f0.arg1 in (cast('reader' as binary), cast('admin' as binary)) and f0.arg2 is not null);
