"""The multilingual corpus: corrections repeated across sessions in eight languages.

Chinese, Japanese, Korean, German, Spanish, Russian, Portuguese, and Chinese
code-switched with English (issue 19), three sessions each, one project per
language. Every language has two corrections said in two or three sessions
(proposed), one said in one session only (a decoy: not proposed), and the
traps verification exists for:
- a quote that sits inside a longer unspaced sentence, no space or mark
  around it (zh, ja), and one with no punctuation at all (zh);
- a quote whose turn ends in 。 (the model drops it);
- a short directive typed alone (`别用 mock`, zh): whole, like "use bun";
- a denial reason and a plan rejection in the person's language (zh, ja, de,
  ru, zh-en), and an interrupt followed by a correction (ru);
- a look-alike pair that must stay two proposals (zh: generated files vs
  migration files; de: type annotations vs docstrings);
- a paraphrase the imperfect model reports (must be dropped) and a "rule"
  read from a file header in tool output (must be dropped).
Each group's rule text (`summary`) is written in the language it was said in.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from evals.builder import ClaudeSession, fresh_root, session_id
from evals.gold import Gold, Mistake

LANGUAGES = ("zh", "ja", "ko", "de", "es", "ru", "pt", "zh-en")


def _t(day: int, hour: int) -> datetime:
    return datetime(2026, 11, day, hour, 0, 0, tzinfo=UTC)


class _Corpus:
    def __init__(self, root: Path) -> None:
        self.home = root / "home"
        self.claude = self.home / ".claude"
        self.gold = Gold(corpus="multilingual")
        self.day = 0

    def project(self, name: str) -> str:
        path = self.home / "work" / name
        path.mkdir(parents=True)
        return str(path)

    def session(self, key: str, cwd: str) -> ClaudeSession:
        self.day += 1
        return ClaudeSession(session_id(f"multi-{key}"), cwd, _t(1 + self.day % 28, 8 + self.day % 9))


def _zh(c: _Corpus) -> None:
    g = c.gold
    cwd = c.project("shop-zh")
    gen = g.group("zh-hands-off-generated", "directive", "生成的文件不要手改，用 codegen 重新生成。",
                  language="zh")
    mig = g.group("zh-hands-off-migrations", "directive", "迁移文件不要手改，用 alembic 生成。",
                  language="zh", category="database", decoy_of=gen)
    deps = g.group("zh-no-new-dependencies", "directive", "不要随便加新的依赖，优先用标准库。",
                   language="zh", category="dependencies")
    mock = g.group("zh-no-mocks", "directive", "别用 mock。", language="zh", category="testing")
    once = g.group("zh-rename-fetch-orders", "request", "把函数改名为 fetchOrders。", language="zh")

    s1 = c.session("zh-1", cwd)
    s1.user("订单列表分页有问题，帮我看一下")
    s1.tool("Read", {"file_path": f"{cwd}/src/generated/api.ts"},
            "// 自动生成的文件，请勿手动修改\nexport const api = {}")
    g.mistakes.append(Mistake(s1.session_id, "自动生成的文件，请勿手动修改", "directive", "tool-output"))
    g.traps.append("自动生成的文件，请勿手动修改")
    s1.user(g.said(s1.session_id, "生成的文件不要手改，改了会被 codegen 覆盖", gen))
    s1.user(g.said(s1.session_id, "别用 mock", mock))
    s1.mode("plan")
    s1.denied_tool("ExitPlanMode", {"plan": "1. 安装 lodash\n2. 用 lodash 做分页"},
                   g.said(s1.session_id, "不要为了这个加新的依赖，用标准库就行", deps))
    s1.write(c.claude)

    s2 = c.session("zh-2", cwd)
    s2.user("导出报表的时候偶尔会超时")
    s2.user("先看一下报错然后" + g.said(s2.session_id, "别手动改生成的代码，用 codegen 重新生成", gen)
            + "再跑一下测试")
    g.mistakes.append(Mistake(s2.session_id, "不要手动修改生成的代码", "directive", "paraphrase"))
    s2.user(g.said(s2.session_id, "别用 mock", mock))
    s2.user(g.said(s2.session_id, "迁移文件不要手改，用 alembic 生成", mig))
    s2.user(g.said(s2.session_id, "把 getOrders 这个函数改名成 fetchOrders", once))
    s2.write(c.claude)

    s3 = c.session("zh-3", cwd)
    s3.user("加一个按月统计的接口")
    s3.denied_tool("Edit", {"file_path": f"{cwd}/src/generated/api.ts", "old_string": "a",
                            "new_string": "b"},
                   g.said(s3.session_id, "不要改 src/generated 里的文件，那是生成的", gen))
    s3.user(g.said(s3.session_id, "不要随便加依赖先问我。", deps))
    s3.user(g.said(s3.session_id, "迁移文件别手动编辑，都用 alembic 自动生成", mig))
    s3.write(c.claude)


def _ja(c: _Corpus) -> None:
    g = c.gold
    cwd = c.project("app-ja")
    tests = g.group("ja-tests-before-commit", "directive", "コミットする前に必ずテストを実行する。",
                    language="ja")
    anyt = g.group("ja-no-any-type", "directive", "any 型は使わず、きちんと型を書く。", language="ja",
                   category="code-style")
    once = g.group("ja-english-comments-once", "directive", "このファイルのコメントは英語にする。",
                   language="ja")

    s1 = c.session("ja-1", cwd)
    s1.user("ログイン画面のバリデーションを直してください")
    s1.user(g.said(s1.session_id, "コミットする前に必ずテストを実行してください", tests))
    s1.user(g.said(s1.session_id, "any 型は使わないでください。", anyt))
    s1.write(c.claude)

    s2 = c.session("ja-2", cwd)
    s2.user("セッションの有効期限を延ばしたい")
    s2.user("了解。あと、" + g.said(s2.session_id, "テストを回してからコミットして", tests)
            + "ね。失敗したら直してから")
    s2.denied_tool("Write", {"file_path": f"{cwd}/src/session.ts", "content": "let x: any"},
                   g.said(s2.session_id, "any は使わないで、ちゃんと型を書いて", anyt))
    s2.write(c.claude)

    s3 = c.session("ja-3", cwd)
    s3.user("通知のメール文面を変更して")
    s3.user(g.said(s3.session_id, "このファイルだけコメントを英語で書いてください", once))
    s3.user(g.said(s3.session_id, "テストを実行してからコミットすること", tests))
    s3.write(c.claude)


def _ko(c: _Corpus) -> None:
    g = c.gold
    cwd = c.project("api-ko")
    pnpm = g.group("ko-use-pnpm", "directive", "npm 대신 pnpm을 사용한다.", language="ko",
                   category="tooling")
    log = g.group("ko-no-console-log", "directive", "console.log를 커밋하지 않는다.", language="ko")
    once = g.group("ko-ignore-lint-once", "directive", "이번에는 린트 경고를 무시한다.", language="ko")

    s1 = c.session("ko-1", cwd)
    s1.user("회원 가입 API에 이메일 검증을 추가해 주세요")
    s1.user(g.said(s1.session_id, "npm 말고 pnpm을 사용해 주세요", pnpm))
    s1.user(g.said(s1.session_id, "console.log는 커밋하지 마세요", log))
    s1.write(c.claude)

    s2 = c.session("ko-2", cwd)
    s2.user("비밀번호 재설정 메일이 두 번 발송돼요")
    s2.user(g.said(s2.session_id, "패키지는 항상 pnpm으로 설치해", pnpm))
    s2.user(g.said(s2.session_id, "이번만 린트 경고 무시해도 돼", once))
    s2.write(c.claude)

    s3 = c.session("ko-3", cwd)
    s3.user("로그인 실패 횟수 제한을 넣어 주세요")
    s3.user(g.said(s3.session_id, "디버그용 console.log 남기지 마", log))
    s3.user(g.said(s3.session_id, "pnpm 써 주세요, npm 쓰지 말고", pnpm))
    s3.write(c.claude)


def _de(c: _Corpus) -> None:
    g = c.gold
    cwd = c.project("billing-de")
    push = g.group("de-never-force-push", "directive", "Niemals force-pushen; einen neuen Commit machen.",
                   language="de", scope="user", category="git")
    hints = g.group("de-type-annotations", "directive",
                    "Überall Typannotationen schreiben, auch in den Tests.", language="de",
                    category="code-style")
    docs = g.group("de-public-docstrings", "directive",
                   "Docstrings für alle öffentlichen Funktionen schreiben.", language="de",
                   category="code-style", decoy_of=hints)
    once = g.group("de-rename-invoice-once", "request", "Invoice in Rechnung umbenennen.", language="de")

    s1 = c.session("de-1", cwd)
    s1.user("Die Rechnungssummen sind bei manchen Währungen um einen Cent falsch")
    s1.user(g.said(s1.session_id, "Bitte niemals auf main force-pushen.", push))
    s1.user(g.said(s1.session_id, "Schreib überall Typannotationen, auch in den Tests", hints))
    s1.user(g.said(s1.session_id, "Schreib Docstrings für alle öffentlichen Funktionen", docs))
    s1.write(c.claude)

    s2 = c.session("de-2", cwd)
    s2.user("Füge eine Rundung pro Währung hinzu")
    s2.user(g.said(s2.session_id, "Alle Funktionen brauchen Typannotationen, ohne Ausnahme bitte", hints))
    s2.user(g.said(s2.session_id, "Öffentliche Funktionen bekommen immer einen Docstring", docs))
    s2.user(g.said(s2.session_id, "Benenne die Klasse Invoice in Rechnung um", once))
    s2.write(c.claude)

    s3 = c.session("de-3", cwd)
    s3.mode("plan")
    s3.user("Plane, wie wir die alten Commits aufräumen")
    s3.denied_tool("ExitPlanMode", {"plan": "1. git rebase -i\n2. git push --force"},
                   g.said(s3.session_id, "Nein, kein Force-Push. Mach einen neuen Commit, statt die "
                          "Historie auf dem geteilten Branch umzuschreiben", push))
    s3.write(c.claude)


def _es(c: _Corpus) -> None:
    g = c.gold
    cwd = c.project("tienda-es")
    mocks = g.group("es-real-test-database", "directive",
                    "Nada de mocks de la base de datos en los tests.", language="es", category="testing")
    commits = g.group("es-english-commit-messages", "directive",
                      "Los mensajes de commit se escriben en inglés.", language="es", category="git")
    once = g.group("es-blue-button-once", "request", "Cambiar el botón a azul.", language="es")

    s1 = c.session("es-1", cwd)
    s1.user("El carrito pierde los productos al recargar la página")
    s1.user(g.said(s1.session_id, "No uses mocks para la base de datos en los tests", mocks))
    s1.user(g.said(s1.session_id, "Escribe los mensajes de commit en inglés, por favor", commits))
    s1.write(c.claude)

    s2 = c.session("es-2", cwd)
    s2.user("Añade descuentos por cantidad")
    s2.user(g.said(s2.session_id, "¡Nada de mocks de la base de datos!", mocks))
    s2.user(g.said(s2.session_id, "cambia el color del botón de pagar a azul", once))
    s2.write(c.claude)

    s3 = c.session("es-3", cwd)
    s3.user("Los correos de confirmación llegan sin el número de pedido")
    s3.user(g.said(s3.session_id, "los tests deben usar una base de datos real, sin mocks de ningún tipo",
                   mocks))
    s3.user(g.said(s3.session_id, "Los commits siempre en inglés, aunque hablemos en español", commits))
    s3.write(c.claude)


def _ru(c: _Corpus) -> None:
    g = c.gold
    cwd = c.project("bot-ru")
    logging = g.group("ru-logging-not-print", "directive", "Не использовать print, только logging.",
                      language="ru", category="code-style")
    small = g.group("ru-small-commits", "directive", "Делать маленькие коммиты, по одному изменению.",
                    language="ru", category="git")
    once = g.group("ru-rename-total-once", "request", "Переименовать переменную в total.", language="ru")

    s1 = c.session("ru-1", cwd)
    s1.user("Бот не отвечает на команду /start в группах")
    s1.user(g.said(s1.session_id, "Не используй print, только logging", logging))
    s1.user(g.said(s1.session_id, "Делай маленькие коммиты, по одному изменению", small))
    s1.write(c.claude)

    s2 = c.session("ru-2", cwd)
    s2.user("Добавь команду /stats")
    s2.tool("Edit", {"file_path": f"{cwd}/bot/stats.py", "old_string": "a", "new_string": "print(x)"}, "ok")
    s2.interrupt(for_tool=True)
    s2.user(g.said(s2.session_id, "Стоп, вместо print используй модуль logging", logging))
    s2.user(g.said(s2.session_id, "переименуй эту переменную в total", once))
    s2.write(c.claude)

    s3 = c.session("ru-3", cwd)
    s3.user("Сделай рассылку по расписанию")
    s3.denied_tool("Bash", {"command": "git commit -am 'everything'"},
                   g.said(s3.session_id, "Коммиты должны быть маленькими, не всё сразу", small))
    s3.denied_tool("Edit", {"file_path": f"{cwd}/bot/send.py", "old_string": "a", "new_string": "print()"},
                   g.said(s3.session_id, "никаких print в коде, логируй через logging", logging))
    s3.write(c.claude)


def _pt(c: _Corpus) -> None:
    g = c.gold
    cwd = c.project("loja-pt")
    lint = g.group("pt-lint-before-pr", "directive", "Rodar o linter antes de abrir um PR.",
                   language="pt")
    secrets = g.group("pt-secrets-in-env", "directive",
                      "Nunca colocar segredos no código; usar variáveis de ambiente.", language="pt",
                      category="security")
    once = g.group("pt-no-script-tests", "directive", "Esse script não precisa de testes.",
                   language="pt")

    s1 = c.session("pt-1", cwd)
    s1.user("O checkout está cobrando o frete duas vezes")
    s1.user(g.said(s1.session_id, "Sempre rode o linter antes de abrir o PR", lint))
    s1.user(g.said(s1.session_id, "Nunca coloque segredos no código, use variáveis de ambiente", secrets))
    s1.write(c.claude)

    s2 = c.session("pt-2", cwd)
    s2.user("Adiciona cupom de desconto no carrinho")
    s2.user(g.said(s2.session_id, "Roda o ruff antes de abrir qualquer PR, por favor", lint))
    s2.user(g.said(s2.session_id, "não precisa escrever testes para esse script", once))
    s2.write(c.claude)

    s3 = c.session("pt-3", cwd)
    s3.user("Integra o pagamento por Pix")
    s3.user(g.said(s3.session_id, "Segredos vão no .env, nunca no código", secrets))
    s3.write(c.claude)


def _mix(c: _Corpus) -> None:
    g = c.gold
    cwd = c.project("web-mix")
    vitest = g.group("mix-vitest-not-jest", "directive", "测试用 vitest，不要用 jest。",
                     language="zh-en", category="testing")
    anyt = g.group("mix-unknown-not-any", "directive", "TypeScript 里不要写 any，用 unknown 再 narrow。",
                   language="zh-en", category="code-style")
    once = g.group("mix-hold-merge-once", "request", "这个 PR 先不要 merge。", language="zh-en")

    s1 = c.session("mix-1", cwd)
    s1.user("dashboard 的图表在 Safari 上不显示")
    s1.user(g.said(s1.session_id, "测试用 vitest，不要用 jest", vitest))
    s1.user(g.said(s1.session_id, "TypeScript 里不要写 any, 用 unknown 然后 narrow", anyt))
    s1.write(c.claude)

    s2 = c.session("mix-2", cwd)
    s2.user("加一个 dark mode 的开关")
    s2.user(g.said(s2.session_id, "别再用 jest 了, use vitest for all the tests", vitest))
    s2.denied_tool("Edit", {"file_path": f"{cwd}/src/theme.ts", "old_string": "a", "new_string": "x: any"},
                   g.said(s2.session_id, "don't use any 类型，用 unknown", anyt))
    s2.user(g.said(s2.session_id, "这个 PR 先不要 merge，等我 review", once))
    s2.write(c.claude)

    s3 = c.session("mix-3", cwd)
    s3.user("登录页的 form validation 有 bug")
    s3.user(g.said(s3.session_id, "unit tests 全部用 vitest 跑", vitest))
    s3.write(c.claude)


def build(root: Path) -> Gold:
    fresh_root(root)
    c = _Corpus(root)
    for add in (_zh, _ja, _ko, _de, _es, _ru, _pt, _mix):
        add(c)
    c.gold.finish()
    c.gold.write(root / "gold.json")
    return c.gold
