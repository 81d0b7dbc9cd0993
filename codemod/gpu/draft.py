"""The draft-backend phases of the GPU worker: ``TRTLLMHAAttnMultiStepDraftBackend`` through the kit's EAGLE setup.

A part of ``worker.Worker`` (which mixes it in): the methods read the worker's state
(``self.da``, ``self.torch``, ``self.sdr``, ...) and record through it.
"""

from __future__ import annotations

import dataclasses
import time

from .kit import CAPTURE_BS, DRAFT_TOKENS, STEPS, TOPK, VOCAB, BACKEND, _short


class DraftPhases:
    """The draft cases: the kit's EAGLE server-args setup, a manual multi-step decode, the kit's draft runners."""

    def configure_draft(self, runner, case):
        """The kit's EAGLE server-args setup; without it the draft backend still builds (without spec args)."""
        if self.sdr is None:
            return f"not configured: speculative_draft_runner import failed: {self.sdr_error}"
        da = self.da
        try:
            settings = self.sdr.EagleDraftRunnerSettings(
                topk=TOPK, speculative_num_steps=STEPS, speculative_num_draft_tokens=DRAFT_TOKENS, capture_batch_size=CAPTURE_BS,
                hidden_size=self.args.hidden_size, vocab_size=VOCAB, max_context_len=da.DEFAULT_MAX_CONTEXT_LEN,
                dtype=da.DEFAULT_DTYPE, device="cuda", atol=da.DENSE_ATOL, rtol=da.DENSE_RTOL)
            self.sdr._configure_runner_for_eagle_draft(runner, case, settings)
            return "speculative_draft_runner._configure_runner_for_eagle_draft"
        except Exception as e:  # noqa: BLE001
            self.error("configure draft runner", e)
            return f"not configured: {_short(e)}"

    def draft_case(self, name):
        from sglang.srt.model_executor.forward_batch_info import ForwardMode
        return self.da.DenseAttentionCase(name=name, backend=BACKEND, forward_mode=ForwardMode.DECODE, num_heads=4, num_kv_heads=4,
                                          page_size=16, prefix_lens=(4, 7))

    def run_draft_manual(self):
        """init_forward_metadata on TRTLLMHAAttnMultiStepDraftBackend, then one decode forward through each per-step
        backend; step i writes KV at prefix+i and reads prefix+i+1 keys; checked against the kit's dense reference."""
        da, torch, mode = self.da, self.torch, "draft"
        from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
        from sglang.srt.model_executor.forward_context import ForwardContext, forward_context
        from sglang.srt.speculative.eagle_info import EagleDraftInput
        from sglang.srt.speculative.spec_info import SpeculativeAlgorithm
        case, t0 = self.draft_case("draft_manual_chain"), time.time()
        if not self.selected(case.name):
            return
        try:
            self.seed()
            # "contiguous": a paged kernel reads a logical page as one physical page, so the fixture's prefix and the
            # draft slots (the kit's _token_loc, as _prepare_dense_draft_replay_state uses) must share one layout.
            fx = da.build_dense_attention_fixture(self.tc, case, disable_cuda_graph=False, runner_batch_size=CAPTURE_BS,
                                                  loc_layout="contiguous", **self.kw)
            note = self.configure_draft(fx.runner, case)
            draft = self.tmb.TRTLLMHAAttnMultiStepDraftBackend(fx.runner, TOPK, STEPS)
            bs, dev, locs = case.batch_size, "cuda", []
            for r, p in enumerate(case.prefix_lens):
                for s in range(STEPS):
                    locs.append(da._token_loc(r, p + s, page_size=case.page_size, max_context_len=da.DEFAULT_MAX_CONTEXT_LEN))
                    fx.runner.req_to_token_pool.req_to_token[r, p + s] = locs[-1]
            gen = torch.Generator(device=dev)
            gen.manual_seed(4080)
            hidden = [torch.randn(bs, self.args.hidden_size, generator=gen, device=dev, dtype=da.DEFAULT_DTYPE) for _ in range(STEPS - 1)]
            seq, out_cache_loc = torch.tensor(case.prefix_lens, dtype=torch.int32, device=dev), torch.tensor(locs, dtype=torch.int64, device=dev)
            spec = EagleDraftInput(topk_p=torch.ones(bs, TOPK, device=dev), topk_index=torch.zeros(bs, TOPK, dtype=torch.int64, device=dev),
                                   hidden_states=hidden[0].clone(), capture_hidden_mode=CaptureHiddenMode.LAST,
                                   num_tokens_per_req=TOPK, num_tokens_for_logprob_per_req=TOPK)
            batch = ForwardBatch(forward_mode=ForwardMode.DECODE, batch_size=bs, input_ids=None, seq_lens=seq,
                                 req_pool_indices=torch.arange(bs, dtype=torch.int32, device=dev),
                                 seq_lens_cpu=torch.tensor(case.prefix_lens, dtype=torch.int32), out_cache_loc=out_cache_loc,
                                 seq_lens_sum=sum(case.prefix_lens), positions=seq.to(torch.int64), spec_info=spec,
                                 spec_algorithm=SpeculativeAlgorithm.EAGLE, capture_hidden_mode=CaptureHiddenMode.LAST)
            fx.runner.kv_index_translator.bind_own_plan(batch)  # a plan over all STEPS write slots, as the kit binds it
            with torch.no_grad():
                draft.init_forward_metadata(batch)
            batch.mark_forward_metadata_ready()
            per_step = out_cache_loc.view(bs, STEPS).t().contiguous()  # = per_step_draft_out_cache_loc for topk=1
        except BaseException as e:  # noqa: BLE001
            return self.record_exc(mode, f"manual/{case.name}", e, t0)
        for i, child in enumerate(draft.attn_backends):
            t1, key, name = time.time(), None, f"manual/{case.name}/step{i}"
            try:
                batch.out_cache_loc, batch.positions = per_step[i], (seq + i).to(torch.int64)
                with torch.no_grad(), forward_context(ForwardContext(attn_backend=child)):
                    actual = fx.actual_module(hidden[i], batch)
                torch.cuda.synchronize()
                key = self.save(f"draft/{name}", actual)
                case_i = da.make_dense_case_with_prefix_lens(case, f"{case.name}_step{i}", tuple(p + i for p in case.prefix_lens))
                prefix = [torch.cat([fx.prefix_hidden[r]] + [hidden[j][r:r + 1] for j in range(i)]) for r in range(bs)]
                expected = da.expected_dense_output_from_inputs(fx, case_i, {"prefix_hidden": prefix, "input_hidden": hidden[i]}, None)
                torch.testing.assert_close(actual, expected, atol=da.DENSE_ATOL, rtol=da.DENSE_RTOL)
                err = (actual.float() - expected.float()).abs().max().item()
                self.record(mode, name, "passed", f"max_abs_err={err:.2e} via {type(child).__name__}", t1, key, spec_setup=note)
            except BaseException as e:  # noqa: BLE001
                self.record_exc(mode, name, e, t1, key, spec_setup=note)

    def run_draft_runners(self):
        """The kit's EAGLE draft CUDA-graph runner and Frozen-KV MTP runner, on the upstream trtllm_mha test's cases;
        the adapter's assert_outputs_close is wrapped so that (actual, expected) can be saved."""
        sdr = self.sdr
        for kind, cname in (("eagle_draft", "runner_eagle_draft_decode_trtllm_mha_cuda_graph_chain"),
                            ("frozen_kv_mtp", "runner_frozen_kv_mtp_decode_trtllm_mha_cuda_graph")):
            case, t0, name, key = self.draft_case(cname), time.time(), f"runner/{cname}", None
            if not self.selected(cname):
                continue
            if sdr is None:
                self.record("draft", name, "skipped", f"speculative_draft_runner import failed: {self.sdr_error}", t0)
                continue
            glob = f"run_{kind}_cuda_graph_runner_case"  # the run_dense_* wrappers read this global at call time
            orig, got = getattr(sdr, glob), {}

            def intercept(testcase, case_, *, adapter, build_kwargs, settings, _orig=orig, _got=got):
                inner = adapter.assert_outputs_close

                def keep(actual, expected, s):
                    _got["actual"], _got["expected"] = actual, expected
                    return inner(actual, expected, s)

                return _orig(testcase, case_, adapter=dataclasses.replace(adapter, assert_outputs_close=keep),
                             build_kwargs=build_kwargs, settings=settings)

            setattr(sdr, glob, intercept)
            try:
                self.seed()
                if kind == "eagle_draft":
                    sdr.run_dense_eagle_draft_cuda_graph_runner_case(self.tc, case, topk=TOPK, speculative_num_draft_tokens=DRAFT_TOKENS, **self.kw)
                else:
                    sdr.run_dense_frozen_kv_mtp_cuda_graph_runner_case(self.tc, case, **self.kw)
                self.torch.cuda.synchronize()
                key = self.save_draft_outputs(name, got)
                self.record("draft", name, "passed", "graph replay matches eager draft_forward", t0, key)
            except BaseException as e:  # noqa: BLE001
                key = self.save_draft_outputs(name, got)
                self.record_exc("draft", name, e, t0, key)
            finally:
                setattr(sdr, glob, orig)

    def save_draft_outputs(self, name, got):
        """Saves each tensor of the runner's (actual, expected); returns the key of the actual draft tokens (index 2 of
        EAGLE's (parents, top-score indices, tokens, probs)), else of its first tensor."""
        first = None
        for which in ("actual", "expected"):
            vals = got.get(which)
            for j, t in enumerate(vals if isinstance(vals, (tuple, list)) else [vals]):
                if self.torch.is_tensor(t):
                    k = self.save(f"draft/{name}/{which}/{j}", t)
                    first = k if which == "actual" and (first is None or j == 2) else first
        return first

