"""A password piped or here-string'd into `sudo -S` after sudo's options that take a value.

`echo pw | sudo --user bob -S id` and `sudo --prompt 'x y' --stdin` kept their password:
only `--name=value` was read as an option with its value, so `bob` was taken for the
command and the `-S` after it for the command's. Each spelling below failed before
(learn.redaction.stdin_passwords.SUDO_STDIN); the look-alikes after them must stay whole.
"""

from __future__ import annotations

import pytest

from learn.redaction.redact import redact

PW = "Hunt3r-22x"
RED = "[REDACTED:password]"

SPELLINGS = [
    # Long options with the value as the next word.
    f"echo '{PW}' | sudo --user bob -S apt install x",
    f"echo '{PW}' | sudo --group wheel --stdin id",
    f"echo '{PW}' | sudo --host build1 -S id",
    f"echo '{PW}' | sudo --prompt 'Pass word: ' --stdin id",
    f"echo '{PW}' | sudo --prompt \"[sudo] pw for %u: \" -S id",
    f"echo '{PW}' | sudo --other-user alice -S -l",
    f"echo '{PW}' | sudo --close-from 4 -S id",
    f"echo '{PW}' | sudo --chdir /srv/app -S make",
    f"echo '{PW}' | sudo --role webadm_r --type webadm_t -S id",
    f"echo '{PW}' | sudo --command-timeout 10 -S id",
    f"echo '{PW}' | sudo --chroot /srv/jail --stdin id",
    f"echo '{PW}' | sudo --user bob --preserve-env -S id",
    f"echo '{PW}' | sudo --preserve-env -S id",
    # A quoted prompt with blanks in it.
    f"echo '{PW}' | sudo -p 'Pass word: ' -S id",
    # printf, and a here-string, after the same options.
    f"printf '{PW}\\n' | sudo --user bob -S id",
    f"sudo --user bob -S <<< '{PW}' id",
    f"sudo --prompt 'x y' --stdin <<< '{PW}' id",
]


@pytest.mark.parametrize("text", SPELLINGS)
def test_a_password_piped_to_sudo_after_its_valued_options_is_redacted(text: str) -> None:
    out = redact(text)
    assert PW not in out
    assert RED in out
    assert out == text.replace(PW, RED)


@pytest.mark.parametrize(
    "text",
    [
        # Already taken before, kept taken: the spellings the brief names.
        f"echo '{PW}' | sudo -u bob -S id",
        f"echo '{PW}' | sudo -u bob -H -S id",
        f"echo '{PW}' | sudo -g grp -E -i -S id",
        f"echo '{PW}' | sudo --user=bob --stdin id",
        f"echo '{PW}' | sudo -Su bob id",
        f"echo '{PW}' | sudo -kSu bob id",
        f"echo '{PW}' | sudo -ubob -S id",
        f"echo '{PW}' | sudo -u '#1000' -S id",
        f"echo '{PW}' | sudo -T 10 -C 3 -D /tmp -R /srv -r r -t t -U u -h h -S id",
    ],
)
def test_the_short_and_combined_spellings_stay_redacted(text: str) -> None:
    assert redact(text) == text.replace(PW, RED)


@pytest.mark.parametrize(
    "text",
    [
        # No -S or --stdin for sudo: the piped word is the command's input.
        f"echo '{PW}' | sudo -u bob id",
        f"echo '{PW}' | sudo --user bob tee /etc/flag",
        f"echo '{PW}' | sudo --user=bob tee /etc/flag",
        f"echo '{PW}' | sudo -g grp tee /etc/flag",
        # The -S is the command's, after sudo's user.
        "echo y | sudo -u bob pacman -S vim",
        "echo y | sudo --user bob pacman -S vim",
        "echo y | sudo --user=bob pacman -S vim",
        # In a cluster a valued letter takes the rest: `-uS` is the user `S`.
        f"echo '{PW}' | sudo -uS id",
        f"echo '{PW}' | sudo -uSam id",
        # The value-taking option takes `-S` as its value: no stdin.
        f"echo '{PW}' | sudo -u -S id",
        f"echo '{PW}' | sudo --user -S id",
        # A variable piped after the options.
        'echo "$PW" | sudo --user bob -S id',
        'sudo --user bob -S <<< "$PW" id',
    ],
)
def test_sudo_with_a_user_but_no_stdin_flag_keeps_the_piped_text(text: str) -> None:
    assert redact(text) == text


def test_sudo_options_are_read_in_linear_time_on_adversarial_text() -> None:
    # Unbounded, `sudo -u sudo -u sudo …` had every `sudo` read the options to the
    # line's end. Run in a child, so a regression fails here instead of hanging.
    import subprocess
    import sys
    from pathlib import Path

    script = """
import time
from learn.redaction.redact import redact
n = 1_000_000
shapes = [
    "sudo -u sudo " * (n // 13),
    "echo x | sudo -u x " * (n // 19),
    "echo x | sudo --user x -k " * (n // 26),
    "echo x | sudo -u " + "x" * n,
    "echo x | sudo -p '" + "x " * (n // 2),
    "echo x | sudo " + "-k " * (n // 3),
    "sudo -S " + "--preserve-env " * (n // 15) + "<<< x",
    "echo x | sudo -u" + "sudo-u" * (n // 6),
]
for text in shapes:
    t0 = time.perf_counter()
    redact(text)
    assert time.perf_counter() - t0 < 10, text[:40]
"""
    root = Path(__file__).resolve().parents[1]
    subprocess.run([sys.executable, "-c", script], check=True, timeout=60, cwd=root)
