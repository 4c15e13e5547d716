-- authorize
with
  polar_c0(arg0, arg1, arg2) as not materialized (SELECT * FROM extends_b0)
 select exists (select 1 from polar_c0 as f0 where f0.arg0 = 'ada' and f0.arg1 in ('reader', 'admin') and f0.arg2 = 'f1') as allowed;

-- actions
with
  polar_c0(arg0, arg1, arg2) as not materialized (SELECT * FROM extends_b0)
 select distinct a.actions from (select cast('read' as text) as actions from polar_c0 as f0 where f0.arg0 = 'ada' and f0.arg1 in ('reader', 'admin') and f0.arg2 = 'f1') as a;

-- list
t.id = any(array((with
  polar_c0(arg0, arg1, arg2) as not materialized (SELECT * FROM extends_b0)
 select f0.arg2 from polar_c0 as f0 where f0.arg0 = 'ada' and f0.arg1 in ('reader', 'admin') and f0.arg2 is not null)));
