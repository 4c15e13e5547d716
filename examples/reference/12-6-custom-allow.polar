# Reference §12.6: Custom `allow`, context facts and `@current_unix_time`
actor User {}
resource Report {
  roles = ["viewer"];
  permissions = ["read", "export"];
  "read" if "viewer";
  "export" if "viewer";
}

# any allow/3 clause removes the default allow rule, so "read" is restated
allow(user: User, "read", report: Report) if has_permission(user, "read", report);

# mfa_verified(user) is sent by the application as a context fact
allow(user: User, "export", report: Report) if
  has_permission(user, "export", report) and mfa_verified(user);

# time-limited grants
allow(user: User, "read", report: Report) if
  has_grant(user, report, expires_at) and expires_at > @current_unix_time;

test "custom allow rules" {
  setup {
    has_role(User{"ada"}, "viewer", Report{"q3"});
    has_role(User{"bo"}, "viewer", Report{"q3"});
    mfa_verified(User{"ada"});
    has_grant(User{"cy"}, Report{"q3"}, 4102444800);
    has_grant(User{"dee"}, Report{"q3"}, 946684800);
  }
  assert allow(User{"ada"}, "export", Report{"q3"});
  assert_not allow(User{"bo"}, "export", Report{"q3"});
  assert allow(User{"bo"}, "read", Report{"q3"});
  assert allow(User{"cy"}, "read", Report{"q3"});
  assert_not allow(User{"dee"}, "read", Report{"q3"});
}
