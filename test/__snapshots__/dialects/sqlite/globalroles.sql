-- authorize
with
  polar_c0(arg0, arg1, arg2) as not materialized (SELECT * FROM globalroles_b1),
  polar_c1(arg0, arg1) as not materialized (SELECT * FROM globalroles_b0)
 select exists (select 1 from polar_c0 as f0 where f0.arg0 = 'ada' collate binary and f0.arg1 collate binary in ('member', 'lead') and f0.arg2 = 'core' collate binary union all select 1 from polar_c1 as f0 where f0.arg0 = 'ada' collate binary and f0.arg1 collate binary in ('support', 'superuser')) as allowed;

-- actions
with
  polar_c0(arg0, arg1, arg2) as not materialized (SELECT * FROM globalroles_b1),
  polar_c1(arg0, arg1) as not materialized (SELECT * FROM globalroles_b0)
 select distinct a.actions from (select 'view' as actions from polar_c0 as f0 where f0.arg0 = 'ada' collate binary and f0.arg1 collate binary in ('member', 'lead') and f0.arg2 = 'core' collate binary union all select 'view' as actions from polar_c1 as f0 where f0.arg0 = 'ada' collate binary and f0.arg1 collate binary in ('support', 'superuser') union all select 'manage' as actions from polar_c0 as f0 where f0.arg0 = 'ada' collate binary and f0.arg1 = 'lead' collate binary and f0.arg2 = 'core' collate binary union all select 'manage' as actions from polar_c1 as f0 where f0.arg0 = 'ada' collate binary and f0.arg1 = 'superuser' collate binary) as a;

-- list
t.id collate binary in (with
  polar_c0(arg0, arg1, arg2) as not materialized (SELECT * FROM globalroles_b1),
  polar_c1(arg0, arg1) as not materialized (SELECT * FROM globalroles_b0)
 select f0.arg2 from polar_c0 as f0 where f0.arg0 = 'ada' collate binary and f0.arg1 collate binary in ('member', 'lead') and f0.arg2 is not null union all select t.id where exists (select 1 from polar_c1 as f0 where f0.arg0 = 'ada' collate binary and f0.arg1 collate binary in ('support', 'superuser')));
