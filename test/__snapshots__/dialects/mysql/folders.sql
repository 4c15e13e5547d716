-- authorize
with recursive
  polar_c0(arg0, arg2) as (SELECT * FROM folders_b0),
  polar_c1(arg0, arg1, arg2) as (SELECT * FROM folders_b2),
  polar_r0(s2) as (select cast(1 as signed) union select cast(q0.arg2 as signed) from polar_r0 as rec, polar_c0 as q0 where q0.arg0 = rec.s2 and q0.arg2 is not null)
 select exists (select 1 from polar_r0 as f0, polar_c1 as f1 where f1.arg0 = cast('ada' as binary) and f1.arg1 in (cast('reader' as binary), cast('writer' as binary)) and f1.arg2 = f0.s2) as allowed;

-- actions
with recursive
  polar_c0(arg0, arg2) as (SELECT * FROM folders_b0),
  polar_c1(arg0, arg1, arg2) as (SELECT * FROM folders_b2),
  polar_r0(s2) as (select cast(1 as signed) union select cast(q0.arg2 as signed) from polar_r0 as rec, polar_c0 as q0 where q0.arg0 = rec.s2 and q0.arg2 is not null)
 select convert(min(d.actions) using utf8mb4) as actions from (select 'list' as actions from polar_r0 as f0, polar_c1 as f1 where f1.arg0 = cast('ada' as binary) and f1.arg1 in (cast('reader' as binary), cast('writer' as binary)) and f1.arg2 = f0.s2 union all select 'upload' as actions from polar_r0 as f0, polar_c1 as f1 where f1.arg0 = cast('ada' as binary) and f1.arg1 = cast('writer' as binary) and f1.arg2 = f0.s2) as d group by cast(d.actions as binary);

-- list
t.id in (with recursive
  polar_c0(arg0, arg1, arg2) as (SELECT * FROM folders_b2),
  polar_c1(arg0, arg2) as (SELECT * FROM folders_b0),
  polar_r0(arg2) as (select cast(q0.arg2 as signed) from polar_c0 as q0 where q0.arg0 = cast('ada' as binary) and q0.arg1 in (cast('reader' as binary), cast('writer' as binary)) and q0.arg2 is not null union select cast(q0.arg0 as signed) from polar_r0 as rec, polar_c1 as q0 where rec.arg2 = q0.arg2 and q0.arg0 is not null)
 select f0.arg2 from polar_r0 as f0);
