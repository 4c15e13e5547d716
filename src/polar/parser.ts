/**
 * The Polar grammar (docs/policy-language.md#grammar) as a Chevrotain CST parser. Rules carry no semantic
 * actions; `cst-to-ast.ts` builds the AST. Rule names match `grammar/polar.ebnf`.
 *
 * Semantic restrictions the grammar leaves open on purpose, checked when building the AST:
 * the right side of `in` must be a list, the left side of `matches` a variable, and a
 * comparison without an operator must be bare `true`/`false`.
 */
import { CstParser, type IOrAlt, type TokenType, tokenMatcher } from "chevrotain";
import { errorMessageProvider } from "./parser-errors.js";
import {
  Actor,
  And,
  Assert,
  AssertNot,
  allTokens,
  Builtin,
  Colon,
  Comma,
  Declare,
  Eq,
  Extends,
  False,
  Fixture,
  Flag,
  Global,
  Gt,
  GtEq,
  Ident,
  If,
  Iff,
  In,
  Integer,
  LBracket,
  LCurly,
  LParen,
  Lt,
  LtEq,
  Matches,
  MatchesBang,
  Not,
  NotEq,
  On,
  Or,
  QueryOp,
  RBracket,
  RCurly,
  Resource,
  RParen,
  Semicolon,
  Setup,
  StringLiteral,
  Test,
  True,
  Type,
} from "./tokens.js";

/**
 * Alternatives for `OR`, built once per parser rather than on every call: this saves
 * allocations, and keeps esbuild's `keepNames` (tsx, vitest) from renaming a fresh closure
 * per alternative per call.
 */
function choices(...alternatives: (() => void)[]): IOrAlt<void>[] {
  return alternatives.map((ALT) => ({ ALT }));
}

/** Only closing punctuation may be invented by single-token insertion; never a name. */
const INSERTABLE: ReadonlySet<TokenType> = new Set([Semicolon, RParen, RBracket, RCurly]);

class PolarParser extends CstParser {
  constructor() {
    super(allTokens as TokenType[], {
      recoveryEnabled: true,
      nodeLocationTracking: "onlyOffset",
      maxLookahead: 3,
      errorMessageProvider,
    });
    this.performSelfAnalysis();
  }

  protected override canTokenTypeBeInsertedInRecovery(tokType: TokenType): boolean {
    // Deleting one stray token beats inventing one when the expected token comes right after.
    return INSERTABLE.has(tokType) && !tokenMatcher(this.LA(2), tokType);
  }

  // ------------------------------------------------------------ top level

  policy = this.RULE("policy", () => {
    this.MANY(() => this.SUBRULE(this.item));
  });

  item = this.RULE("item", () => this.OR(this.itemChoices));
  private readonly itemChoices = choices(
    () => {
      this.SUBRULE(this.block);
      this.OPTION(() => this.CONSUME(Semicolon));
    },
    () => this.SUBRULE(this.ruleType),
    () => this.SUBRULE(this.declare),
    () => this.SUBRULE(this.inlineQuery),
    () => this.SUBRULE(this.fixture),
    () => this.SUBRULE(this.test),
    () => this.SUBRULE(this.rule),
  );

  ruleType = this.RULE("ruleType", () => {
    this.CONSUME(Type);
    this.SUBRULE(this.head);
    this.CONSUME(Semicolon);
  });

  declare = this.RULE("declare", () => {
    this.CONSUME(Declare);
    this.CONSUME(Ident, { LABEL: "name" });
    this.CONSUME(LParen);
    this.OPTION(() => {
      this.CONSUME2(Ident, { LABEL: "type" });
      this.MANY(() => {
        this.CONSUME(Comma);
        this.CONSUME3(Ident, { LABEL: "type" });
      });
    });
    this.CONSUME(RParen);
    this.CONSUME(Semicolon);
  });

  inlineQuery = this.RULE("inlineQuery", () => {
    this.CONSUME(QueryOp);
    this.SUBRULE(this.expr);
    this.CONSUME(Semicolon);
  });

  // ------------------------------------------------------------ blocks

  block = this.RULE("block", () => {
    this.OR(this.blockHeaderChoices);
    this.CONSUME(LCurly);
    this.MANY2(() => this.SUBRULE(this.blockMember));
    this.CONSUME(RCurly);
  });
  private readonly blockHeaderChoices = choices(
    () => {
      this.OR2(this.entityKindChoices);
      this.CONSUME(Ident, { LABEL: "name" });
      this.OPTION(() => {
        this.CONSUME(Extends);
        this.CONSUME2(Ident, { LABEL: "supertype" });
        this.MANY(() => {
          this.CONSUME(Comma);
          this.CONSUME3(Ident, { LABEL: "supertype" });
        });
        this.OPTION2(() => this.CONSUME2(Comma));
      });
    },
    () => this.CONSUME(Global),
  );
  private readonly entityKindChoices = choices(
    () => this.CONSUME(Actor),
    () => this.CONSUME(Resource),
  );

  blockMember = this.RULE("blockMember", () => this.OR(this.blockMemberChoices));
  private readonly blockMemberChoices = choices(
    () => this.SUBRULE(this.declaration),
    () => this.SUBRULE(this.shorthand),
  );

  declaration = this.RULE("declaration", () => {
    this.CONSUME(Ident, { LABEL: "key" });
    this.CONSUME(Eq);
    this.OR(this.declarationValueChoices);
    this.CONSUME(Semicolon);
  });
  private readonly declarationValueChoices = choices(
    () => this.SUBRULE(this.list),
    () => this.SUBRULE(this.dict),
  );

  list = this.RULE("list", () => {
    this.CONSUME(LBracket);
    this.OPTION(() => {
      this.SUBRULE(this.term);
      this.MANY(() => {
        this.CONSUME(Comma);
        this.SUBRULE2(this.term);
      });
      this.OPTION2(() => this.CONSUME2(Comma));
    });
    this.CONSUME(RBracket);
  });

  dict = this.RULE("dict", () => {
    this.CONSUME(LCurly);
    this.OPTION(() => {
      this.SUBRULE(this.field);
      this.MANY(() => {
        this.CONSUME(Comma);
        this.SUBRULE2(this.field);
      });
      this.OPTION2(() => this.CONSUME2(Comma));
    });
    this.CONSUME(RCurly);
  });

  field = this.RULE("field", () => {
    this.CONSUME(Ident, { LABEL: "name" });
    this.OPTION(() => {
      this.CONSUME(Colon);
      this.CONSUME2(Ident, { LABEL: "type" });
    });
  });

  shorthand = this.RULE("shorthand", () => {
    this.MANY(() => this.CONSUME(Flag));
    this.SUBRULE(this.sTerm, { LABEL: "head" });
    this.CONSUME(If);
    this.SUBRULE(this.sOr);
    this.CONSUME(Semicolon);
  });

  sOr = this.RULE("sOr", () => {
    this.SUBRULE(this.sAnd);
    this.MANY(() => {
      this.CONSUME(Or);
      this.SUBRULE2(this.sAnd);
    });
  });

  sAnd = this.RULE("sAnd", () => {
    this.SUBRULE(this.sNot);
    this.MANY(() => {
      this.CONSUME(And);
      this.SUBRULE2(this.sNot);
    });
  });

  sNot = this.RULE("sNot", () => this.OR(this.sNotChoices));
  private readonly sNotChoices = choices(
    () => {
      this.CONSUME(Not);
      this.SUBRULE(this.sNot);
    },
    () => this.SUBRULE(this.sAtom),
  );

  // `global on ...` could also read as the variable `global` followed by `on`; the first
  // reading (a global role named by the variable `on`) wins.
  sAtom = this.RULE("sAtom", () => this.OR({ IGNORE_AMBIGUITIES: true, DEF: this.sAtomChoices }));
  private readonly sAtomChoices = choices(
    () => this.SUBRULE(this.call),
    () => {
      this.CONSUME(Global);
      this.SUBRULE(this.sTerm, { LABEL: "global" });
    },
    () => {
      this.SUBRULE2(this.sTerm, { LABEL: "ref" });
      this.OPTION(() => {
        this.CONSUME(On);
        this.SUBRULE3(this.sTerm, { LABEL: "on" });
      });
    },
    () => {
      this.CONSUME(LParen);
      this.SUBRULE(this.sOr);
      this.CONSUME(RParen);
    },
  );

  sTerm = this.RULE("sTerm", () => this.OR(this.sTermChoices));
  private readonly sTermChoices = choices(
    () => this.CONSUME(StringLiteral),
    () => this.CONSUME(Ident),
  );

  // ------------------------------------------------------------ rules and terms

  rule = this.RULE("rule", () => {
    this.MANY(() => this.CONSUME(Flag));
    this.SUBRULE(this.head);
    this.OPTION(() => {
      this.CONSUME(If);
      this.SUBRULE(this.expr);
    });
    this.CONSUME(Semicolon);
  });

  head = this.RULE("head", () => {
    this.CONSUME(Ident, { LABEL: "name" });
    this.CONSUME(LParen);
    this.OPTION(() => {
      this.SUBRULE(this.param);
      this.MANY(() => {
        this.CONSUME(Comma);
        this.SUBRULE2(this.param);
      });
    });
    this.CONSUME(RParen);
  });

  param = this.RULE("param", () => this.OR(this.paramChoices));
  private readonly paramChoices = choices(
    () => {
      this.CONSUME(Ident, { LABEL: "variable" });
      this.CONSUME(Colon);
      this.CONSUME2(Ident, { LABEL: "type" });
    },
    () => this.SUBRULE(this.term),
  );

  term = this.RULE("term", () => this.OR(this.termChoices));
  private readonly termChoices = choices(
    () => this.SUBRULE(this.objectLiteral),
    () => this.CONSUME(StringLiteral),
    () => this.CONSUME(Integer),
    () => this.CONSUME(True),
    () => this.CONSUME(False),
    () => this.CONSUME(Builtin),
    () => this.CONSUME(Ident),
  );

  objectLiteral = this.RULE("objectLiteral", () => {
    this.CONSUME(Ident, { LABEL: "type" });
    this.CONSUME(LCurly);
    this.OR(this.objectValueChoices);
    this.CONSUME(RCurly);
  });
  private readonly objectValueChoices = choices(
    () => this.CONSUME(StringLiteral),
    () => this.CONSUME(Integer),
    () => this.CONSUME(True),
    () => this.CONSUME(False),
  );

  // ------------------------------------------------------------ expressions (docs/policy-language.md#precedence)

  expr = this.RULE("expr", () => {
    this.SUBRULE(this.andExpr);
    this.MANY(() => {
      this.CONSUME(Or);
      this.SUBRULE2(this.andExpr);
    });
  });

  andExpr = this.RULE("andExpr", () => {
    this.SUBRULE(this.notExpr);
    this.MANY(() => {
      this.CONSUME(And);
      this.SUBRULE2(this.notExpr);
    });
  });

  notExpr = this.RULE("notExpr", () => this.OR(this.notExprChoices));
  private readonly notExprChoices = choices(
    () => {
      this.CONSUME(Not);
      this.SUBRULE(this.notExpr);
    },
    () => this.SUBRULE(this.atom),
  );

  atom = this.RULE("atom", () => this.OR(this.atomChoices));
  private readonly atomChoices = choices(
    () => {
      this.CONSUME(LParen);
      this.SUBRULE(this.expr);
      this.CONSUME(RParen);
    },
    () => this.SUBRULE(this.call),
    () => this.SUBRULE(this.comparison),
  );

  call = this.RULE("call", () => {
    this.CONSUME(Ident, { LABEL: "name" });
    this.CONSUME(LParen);
    this.OPTION(() => {
      this.SUBRULE(this.term);
      this.MANY(() => {
        this.CONSUME(Comma);
        this.SUBRULE2(this.term);
      });
    });
    this.CONSUME(RParen);
  });

  comparison = this.RULE("comparison", () => {
    this.SUBRULE(this.term, { LABEL: "left" });
    this.OPTION(() => this.OR(this.comparisonChoices));
  });
  private readonly comparisonChoices = choices(
    () => {
      this.OR2(this.compareOpChoices);
      this.SUBRULE2(this.term, { LABEL: "right" });
    },
    () => {
      this.CONSUME(In);
      this.OR3(this.inRightChoices);
    },
    () => {
      this.OR4(this.matchesChoices);
      this.CONSUME(Ident, { LABEL: "type" });
    },
  );
  private readonly compareOpChoices = choices(
    () => this.CONSUME(Eq, { LABEL: "op" }),
    () => this.CONSUME(NotEq, { LABEL: "op" }),
    () => this.CONSUME(LtEq, { LABEL: "op" }),
    () => this.CONSUME(GtEq, { LABEL: "op" }),
    () => this.CONSUME(Lt, { LABEL: "op" }),
    () => this.CONSUME(Gt, { LABEL: "op" }),
  );
  private readonly inRightChoices = choices(
    () => this.SUBRULE(this.list),
    () => this.SUBRULE3(this.term, { LABEL: "right" }),
  );
  private readonly matchesChoices = choices(
    () => this.CONSUME(Matches, { LABEL: "matches" }),
    () => this.CONSUME(MatchesBang, { LABEL: "matches" }),
  );

  // ------------------------------------------------------------ tests (docs/policy-language.md#test-blocks)

  fixture = this.RULE("fixture", () => {
    this.CONSUME(Test);
    this.CONSUME(Fixture);
    this.CONSUME(Ident, { LABEL: "name" });
    this.CONSUME(LCurly);
    this.MANY(() => this.SUBRULE(this.fact));
    this.CONSUME(RCurly);
  });

  test = this.RULE("test", () => {
    this.CONSUME(Test);
    this.CONSUME(StringLiteral, { LABEL: "name" });
    this.CONSUME(LCurly);
    this.OPTION(() => this.SUBRULE(this.setup));
    this.MANY(() => this.SUBRULE(this.assertion));
    this.CONSUME(RCurly);
  });

  setup = this.RULE("setup", () => {
    this.CONSUME(Setup);
    this.CONSUME(LCurly);
    this.MANY(() => this.SUBRULE(this.setupEntry));
    this.CONSUME(RCurly);
  });

  setupEntry = this.RULE("setupEntry", () => this.OR(this.setupEntryChoices));
  private readonly setupEntryChoices = choices(
    () => this.SUBRULE(this.fixtureRef),
    () => this.SUBRULE(this.fact),
  );

  fixtureRef = this.RULE("fixtureRef", () => {
    this.CONSUME(Fixture);
    this.CONSUME(Ident, { LABEL: "name" });
    this.CONSUME(Semicolon);
  });

  fact = this.RULE("fact", () => {
    this.SUBRULE(this.call);
    this.CONSUME(Semicolon);
  });

  assertion = this.RULE("assertion", () => {
    this.OR(this.assertionKindChoices);
    this.SUBRULE(this.head);
    this.OPTION(() => {
      this.CONSUME(Iff);
      this.SUBRULE(this.expr);
    });
    this.CONSUME(Semicolon);
  });
  private readonly assertionKindChoices = choices(
    () => this.CONSUME(Assert),
    () => this.CONSUME(AssertNot),
  );
}

/** The one parser instance; Chevrotain parsers are reusable and costly to build. */
export const parser = new PolarParser();
