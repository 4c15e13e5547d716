-- authorize
with recursive
  polar_c0(arg0, arg2) as not materialized (SELECT * FROM mutual_b0),
  polar_c1(arg0, arg1, arg2) as not materialized (SELECT * FROM mutual_b1),
  polar_r0(s2) as (select cast(1 as integer) union select cast(q0.arg2 as integer) from polar_r0 as rec, polar_c0 as q0 where q0.arg0 = rec.s2 and q0.arg2 is not null)
 select exists (select 1 from polar_r0 as f0, polar_c1 as f1 where f1.arg0 = 'ada' collate binary and f1.arg1 = 'reader' collate binary and f1.arg2 = f0.s2) as allowed;

-- actions
with recursive
  polar_c0(arg0, arg2) as not materialized (SELECT * FROM mutual_b0),
  polar_c1(arg0, arg1, arg2) as not materialized (SELECT * FROM mutual_b1),
  polar_c2(arg0) as not materialized (SELECT * FROM mutual_b2),
  polar_r0(k2, s2) as (select cast(q0.arg2 as integer), cast(q0.arg2 as integer) from polar_c0 as q0 where q0.arg0 = 1 and q0.arg2 is not null union select cast(rec.k2 as integer), cast(q0.arg2 as integer) from polar_r0 as rec, polar_c0 as q0 where q0.arg0 = rec.s2 and q0.arg2 is not null),
  polar_r1(s2) as (select cast(1 as integer) union select cast(q0.arg2 as integer) from polar_r1 as rec, polar_c0 as q0 where q0.arg0 = rec.s2 and q0.arg2 is not null)
 select distinct a.actions from (select 'list' as actions from polar_c1 as f0 where f0.arg0 = 'ada' collate binary and f0.arg1 = 'reader' collate binary and f0.arg2 = 1 union all select 'list' as actions from polar_r0 as f0, polar_c1 as f1 where f1.arg0 = 'ada' collate binary and f1.arg1 = 'reader' collate binary and f1.arg2 = f0.s2 union all select 'peek' as actions from polar_r1 as f0, polar_c1 as f1 where not exists (select 1 from polar_c2 as f2 where f2.arg0 = 1) and f1.arg0 = 'ada' collate binary and f1.arg1 = 'reader' collate binary and f1.arg2 = f0.s2) as a;

-- list
t.id in (with recursive
  polar_c0(arg0, arg1, arg2) as not materialized (SELECT * FROM mutual_b1),
  polar_c1(arg0, arg2) as not materialized (SELECT * FROM mutual_b0),
  polar_r0(arg2) as (select cast(q0.arg2 as integer) from polar_c0 as q0 where q0.arg0 = 'ada' collate binary and q0.arg1 = 'reader' collate binary and q0.arg2 is not null union select cast(q0.arg0 as integer) from polar_r0 as rec, polar_c1 as q0 where rec.arg2 = q0.arg2 and q0.arg0 is not null)
 select f0.arg2 from polar_r0 as f0);
