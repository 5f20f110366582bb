"""Golden dumps of control-flow graphs and typestates (reviewed by hand when they change)."""

import pytest

from ownlint.engine.debug import dump_cfg, dump_states

CFG_CASES = {
    "loops": (
        "\ndef f(xs, p):\n    for x in xs:\n        if x:\n            break\n        continue\n    else:\n        g(p)\n    while p:\n        h()\n",
        "B0 (entry):\n  eval xs\n  -> B3\nB1 (exit):\nB3 (loop):\n  -> B4, B5\nB4:\n  bind x <- for\n  eval x\n  -> B7 [true: x], B8 [false: x]\nB5:\n  g(p)\n  -> B6\nB6:\n  -> B10\nB7:\n  -> B6\nB8:\n  -> B9\nB9:\n  -> B3\nB10 (loop):\n  eval p\n  -> B11 [true: p], B12 [false: p]\nB11:\n  h()\n  -> B10\nB12:\n  -> B13\nB13:\n  -> B1\n",
    ),
    "try_return": (
        "\ndef f(p):\n    try:\n        a(p)\n        return 1\n    except E as e:\n        b(e)\n    finally:\n        c(p)\n    d()\n",
        "B0 (entry):\n  -> B6\nB1 (exit):\nB2 (raise):\nB3:\n  d()\n  -> B1\nB4 (finally-exc):\n  c(p)\n  -> B2 [raise]\nB5 (except):\n  -> B7, B4 [raise]\nB6:\n  a(p)\n  return 1\n  c(p)\n  -> B5 [exc], B1\nB7 (handler):\n  bind e <- except\n  -> B8\nB8:\n  b(e)\n  c(p)\n  -> B4 [exc], B3\n",
    ),
    "with_match_assert": (
        "\ndef f(p):\n    with open(p) as fh:\n        g(fh)\n    match p:\n        case 1:\n            a()\n        case _:\n            b()\n    assert p and q\n",
        "B0 (entry):\n  eval open(p)\n  bind fh <- with\n  -> B4\nB1 (exit):\nB2 (raise):\nB3 (finally-exc):\n  exit with open(p) as fh\n  -> B2 [raise]\nB4:\n  g(fh)\n  exit with open(p) as fh\n  eval p\n  -> B3 [exc], B6, B7\nB5:\n  eval p\n  -> B12 [true: p], B11 [false: p]\nB6 (case):\n  bind 1 <- case\n  a()\n  -> B5\nB7:\n  -> B8\nB8 (case):\n  bind _ <- case\n  b()\n  -> B5\nB10:\n  -> B1\nB11:\n  -> B2 [raise]\nB12:\n  eval q\n  -> B10 [true: q], B11 [false: q]\n",
    ),
}

STATE_CASES = {
    "correlated_flag": (
        "\nfrom ze import *\ndef f(hctx, ptr, flag):\n    if flag:\n        zeMemFree(hctx, ptr)\n    zeCommandListReset(hctx)\n    if not flag:\n        zeMemFree(hctx, ptr)\n",
        "B0 eval flag\n  flag=live hctx=live ptr=live\nB4 (empty)\n  flag=live hctx=live ptr=live  | flag=F\nB3 zeMemFree(hctx, ptr)\n  flag=live hctx=live ptr=live  | flag=T\nB5 zeCommandListReset(hctx)\n  flag=live hctx=live ptr=freed  | flag=T\n  flag=live hctx=live ptr=live  | flag=F\nB6 zeMemFree(hctx, ptr)\n  flag=live hctx=live ptr=live  | flag=F\nB7 (empty)\n  flag=live hctx=live ptr=freed  | flag=T\nB8 (empty)\n  flag=live hctx=live ptr=freed\nB1 (exit)\n  flag=live hctx=live ptr=freed\n",
    ),
    "loop_twice": (
        "\nfrom ze import *\ndef f(hctx, p, xs):\n    for x in xs:\n        zeMemFree(hctx, p)\n    zeFoo(p)\n",
        "B0 eval xs\n  hctx=live p=live xs=live\nB3 (loop)\n  hctx=live p=freed x=live xs=live\n  hctx=live p=freed! x=live xs=live\n  hctx=live p=live xs=live\nB5 (empty)\n  hctx=live p=freed x=live xs=live\n  hctx=live p=freed! x=live xs=live\n  hctx=live p=live xs=live\nB6 zeFoo(p)\n  hctx=live p=freed x=live xs=live\n  hctx=live p=freed! x=live xs=live\n  hctx=live p=live xs=live\nB1 (exit)\n  hctx=live p=freed! x=live xs=live\n  hctx=live p=live xs=live\nB4 bind x <- for\n  hctx=live p=freed x=live xs=live\n  hctx=live p=freed! x=live xs=live\n  hctx=live p=live xs=live\n",
    ),
    "transfer_then_del": (
        "\nfrom ze import *\nfrom sycl.ext.oneapi import level_zero as lz\ndef f(hq, ctx, dev):\n    q = lz.make_queue(hq, ctx, device=dev)\n    del q\n    zeCommandQueueSynchronize(hq, 0)\n",
        "B0 q = lz.make_queue(hq, ctx, device=dev)\n  ctx=live dev=live hq=live\nB1 (exit)\n  ctx=live dev=live hq=transferred!(owner owner-dead)\n",
    ),
}


@pytest.mark.parametrize("name", sorted(CFG_CASES))
def test_cfg_dump(name: str) -> None:
    source, expected = CFG_CASES[name]
    assert dump_cfg(source, "f") == expected


@pytest.mark.parametrize("name", sorted(STATE_CASES))
def test_state_dump(name: str) -> None:
    source, expected = STATE_CASES[name]
    assert dump_states(source, "f") == expected
