"""The verify stage: SGLang's own attention kit on the original and the patched sources, on a CUDA GPU.

SGLang-specific, unlike the rest of the package: ``verify`` drives the runs and compares
them, ``worker`` runs one side in its own process. Only the standard library is needed to
import either (torch only inside a run), so they work where libcst is not installed.
"""

# The classes whose patch ``decouple verify`` can run through SGLang's attention kit.
VERIFIED_CLASSES = ("sglang.srt.layers.attention.trtllm_mha_backend:TRTLLMHAAttnBackend",
                    "sglang.srt.layers.attention.trtllm_mha_backend:TRTLLMHAAttnMultiStepDraftBackend")
