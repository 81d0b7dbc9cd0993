"""The GPU-bound latency comparison of ``decouple verify``, on recorded numbers (no GPU needed)."""

import pytest

from codemod.gpu.verify import gpu_bound_latency, render


def results(o, p, o2, p2):
    return {side: {"latency_gpu_bound": {"median_ms": ms, "case": "decode_bs32_ctx16384"}}
            for side, ms in (("original", o), ("patched", p), ("original_again", o2), ("patched_again", p2)) if ms}


@pytest.mark.parametrize("o, p, o2, p2, counts, ratio", [
    pytest.param(1.00, 0.99, 1.02, 1.01, True, 1.0, id="spread-2pc-is-a-result"),
    pytest.param(1.00, 0.50, 1.20, 0.60, False, 0.5, id="near-miss-spread-20pc-is-not"),
    pytest.param(1.00, 1.00, None, None, False, 1.0, id="one-original-run-has-no-spread"),
])
def test_a_ratio_counts_only_within_the_originals_spread(o, p, o2, p2, counts, ratio):
    g = gpu_bound_latency(results(o, p, o2, p2))
    assert g["ratio_is_a_result"] is counts and g["ratio"] == pytest.approx(ratio, rel=0.05)


def test_no_gpu_bound_numbers_no_entry():
    assert gpu_bound_latency({"original": {}, "patched": {}}) == {}


def test_the_table_says_why_a_ratio_is_not_a_result():
    summary = {"tally": {"original": {}, "patched": {}}, "outputs_bitwise_equal": 0, "outputs_compared": 0, "construction": {},
               "latency": {}, "latency_gpu_bound": gpu_bound_latency(results(1.0, 0.5, 1.2, 0.6)), "ok": False,
               "checks": {"outputs_equal": False}}
    text = render(summary, {})
    assert "not a result: the original's two runs differ by 20.0%, over 5%" in text
