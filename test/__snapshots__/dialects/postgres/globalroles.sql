-- authorize
with
  polar_c0(arg0, arg1, arg2) as not materialized (SELECT * FROM globalroles_b1),
  polar_c1(arg0, arg1) as not materialized (SELECT * FROM globalroles_b0)
 select exists (select 1 from polar_c0 as f0 where cast(f0.arg0 as text) = 'ada' and f0.arg1 in ('member', 'lead') and f0.arg2 = 'core') or exists (select 1 from polar_c1 as f0 where cast(f0.arg0 as text) = 'ada' and f0.arg1 in ('support', 'superuser')) as allowed;

-- actions
with
  polar_c0(arg0, arg1, arg2) as not materialized (SELECT * FROM globalroles_b1),
  polar_c1(arg0, arg1) as not materialized (SELECT * FROM globalroles_b0)
 select distinct a.actions from (select cast('view' as text) as actions from polar_c0 as f0 where cast(f0.arg0 as text) = 'ada' and f0.arg1 in ('member', 'lead') and f0.arg2 = 'core' union all select cast('view' as text) as actions from polar_c1 as f0 where cast(f0.arg0 as text) = 'ada' and f0.arg1 in ('support', 'superuser') union all select cast('manage' as text) as actions from polar_c0 as f0 where cast(f0.arg0 as text) = 'ada' and f0.arg1 = 'lead' and f0.arg2 = 'core' union all select cast('manage' as text) as actions from polar_c1 as f0 where cast(f0.arg0 as text) = 'ada' and f0.arg1 = 'superuser') as a;

-- list
t.id in (with
  polar_c0(arg0, arg1, arg2) as not materialized (SELECT * FROM globalroles_b1),
  polar_c1(arg0, arg1) as not materialized (SELECT * FROM globalroles_b0)
 select f0.arg2 from polar_c0 as f0 where cast(f0.arg0 as text) = 'ada' and f0.arg1 in ('member', 'lead') and f0.arg2 is not null union all select t.id where exists (select 1 from polar_c1 as f0 where cast(f0.arg0 as text) = 'ada' and f0.arg1 in ('support', 'superuser')));
