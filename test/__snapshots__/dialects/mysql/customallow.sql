-- authorize
with
  polar_c0(arg0, arg1, arg2) as (SELECT * FROM customallow_b0),
  polar_c1(arg0, arg1, arg2) as (SELECT * FROM customallow_b1)
 select exists (select 1 from polar_c0 as f0 where f0.arg0 = cast('ada' as binary) and f0.arg1 = cast('viewer' as binary) and f0.arg2 = cast('q3' as binary)) or exists (select 1 from polar_c1 as f0 where f0.arg0 = cast('ada' as binary) and f0.arg1 = cast('q3' as binary) and f0.arg2 > 1700000000) as allowed;

-- actions
with
  polar_c0(arg0, arg1, arg2) as (SELECT * FROM customallow_b0),
  polar_c1(arg0, arg1, arg2) as (SELECT * FROM customallow_b1)
 select convert(min(d.actions) using utf8mb4) as actions from (select 'read' as actions from polar_c0 as f0 where f0.arg0 = cast('ada' as binary) and f0.arg1 = cast('viewer' as binary) and f0.arg2 = cast('q3' as binary) union all select 'read' as actions from polar_c1 as f0 where f0.arg0 = cast('ada' as binary) and f0.arg1 = cast('q3' as binary) and f0.arg2 > 1700000000) as d group by cast(d.actions as binary);

-- list
cast(t.id as binary) in (with
  polar_c0(arg0, arg1, arg2) as (SELECT * FROM customallow_b0),
  polar_c1(arg0, arg1, arg2) as (SELECT * FROM customallow_b1)
 select d.c from (select f0.arg2 as c from polar_c0 as f0 where f0.arg0 = cast('ada' as binary) and f0.arg1 = cast('viewer' as binary) and f0.arg2 is not null union all select f0.arg1 from polar_c1 as f0 where f0.arg0 = cast('ada' as binary) and f0.arg2 > 1700000000 and f0.arg1 is not null) as d);
