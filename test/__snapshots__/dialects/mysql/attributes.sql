-- authorize
with
  polar_c0(arg0, arg2) as (SELECT * FROM attributes_b1),
  polar_c1(arg0, arg1, arg2) as (SELECT * FROM attributes_b0),
  polar_c2(arg0) as (SELECT * FROM attributes_b2),
  polar_c3(arg0, arg1) as (SELECT * FROM attributes_b4),
  polar_c4(arg0, arg1) as (SELECT * FROM attributes_b5)
 select exists (select 1 from polar_c0 as f0, polar_c1 as f1 where not exists (select 1 from polar_c2 as f2 where f2.arg0 = cast('00000000-0000-0000-0000-000000000001' as binary)) and f0.arg0 = cast('00000000-0000-0000-0000-000000000001' as binary) and f1.arg0 = cast('ada' as binary) and f1.arg1 = cast('member' as binary) and f1.arg2 = cast(f0.arg2 as binary)) or exists (select 1 from polar_c3 as f0 where f0.arg0 = cast('00000000-0000-0000-0000-000000000001' as binary) and f0.arg1 = true) or exists (select 1 from polar_c2 as f0, polar_c4 as f1 where f0.arg0 = cast('00000000-0000-0000-0000-000000000001' as binary) and f1.arg0 = cast('ada' as binary) and f1.arg1 >= 3) as allowed;

-- actions
with
  polar_c0(arg0, arg2) as (SELECT * FROM attributes_b1),
  polar_c1(arg0, arg1, arg2) as (SELECT * FROM attributes_b0),
  polar_c2(arg0) as (SELECT * FROM attributes_b2),
  polar_c3(arg0, arg1) as (SELECT * FROM attributes_b4),
  polar_c4(arg0, arg1) as (SELECT * FROM attributes_b3),
  polar_c5(arg0, arg1) as (SELECT * FROM attributes_b5)
 select convert(min(d.actions) using utf8mb4) as actions from (select 'view' as actions from polar_c0 as f0, polar_c1 as f1 where not exists (select 1 from polar_c2 as f2 where f2.arg0 = cast('00000000-0000-0000-0000-000000000001' as binary)) and f0.arg0 = cast('00000000-0000-0000-0000-000000000001' as binary) and f1.arg0 = cast('ada' as binary) and f1.arg1 = cast('member' as binary) and f1.arg2 = cast(f0.arg2 as binary) union all select 'view' as actions from polar_c3 as f0 where f0.arg0 = cast('00000000-0000-0000-0000-000000000001' as binary) and f0.arg1 = true union all select 'edit' as actions from polar_c0 as f0, polar_c1 as f1 where not exists (select 1 from polar_c4 as f2 where f2.arg0 = cast('00000000-0000-0000-0000-000000000001' as binary) and f2.arg1 = cast('closed' as binary)) and not exists (select 1 from polar_c2 as f3 where f3.arg0 = cast('00000000-0000-0000-0000-000000000001' as binary)) and f0.arg0 = cast('00000000-0000-0000-0000-000000000001' as binary) and f1.arg0 = cast('ada' as binary) and f1.arg1 = cast('member' as binary) and f1.arg2 = cast(f0.arg2 as binary) union all select 'edit' as actions from polar_c3 as f0 where not exists (select 1 from polar_c4 as f1 where f1.arg0 = cast('00000000-0000-0000-0000-000000000001' as binary) and f1.arg1 = cast('closed' as binary)) and f0.arg0 = cast('00000000-0000-0000-0000-000000000001' as binary) and f0.arg1 = true union all select 'edit' as actions from polar_c2 as f0, polar_c5 as f1 where not exists (select 1 from polar_c4 as f2 where f2.arg0 = cast('00000000-0000-0000-0000-000000000001' as binary) and f2.arg1 = cast('closed' as binary)) and f0.arg0 = cast('00000000-0000-0000-0000-000000000001' as binary) and f1.arg0 = cast('ada' as binary) and f1.arg1 >= 3 union all select 'view' as actions from polar_c2 as f0, polar_c5 as f1 where f0.arg0 = cast('00000000-0000-0000-0000-000000000001' as binary) and f1.arg0 = cast('ada' as binary) and f1.arg1 >= 3) as d group by cast(d.actions as binary);

-- list
cast(t.id as binary) in (with
  polar_c0(arg0, arg2) as (SELECT * FROM attributes_b1),
  polar_c1(arg0, arg1, arg2) as (SELECT * FROM attributes_b0),
  polar_c2(arg0) as (SELECT * FROM attributes_b2),
  polar_c3(arg0, arg1) as (SELECT * FROM attributes_b4),
  polar_c4(arg0, arg1) as (SELECT * FROM attributes_b5)
 select d.c from (select f0.arg0 as c from polar_c0 as f0, polar_c1 as f1 where not exists (select 1 from polar_c2 as f2 where f2.arg0 = cast(f0.arg0 as binary)) and f1.arg0 = cast('ada' as binary) and f1.arg1 = cast('member' as binary) and f1.arg2 = cast(f0.arg2 as binary) and f0.arg0 is not null union all select f0.arg0 from polar_c3 as f0 where f0.arg1 = true and f0.arg0 is not null union all select f0.arg0 from polar_c2 as f0, polar_c4 as f1 where f1.arg0 = cast('ada' as binary) and f1.arg1 >= 3 and f0.arg0 is not null) as d);
