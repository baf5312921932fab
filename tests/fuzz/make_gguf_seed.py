# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Writes a small but complete llama GGUF (8-token vocabulary, n_embd 8, one layer, about 3 KB)
as a seed for fuzz_load_llamacpp: the fixtures' tiny.gguf is 17 MB, too big to mutate, and its
4 KB truncation stops before the hyperparameters the fuzzer should reach.
    .deps/venv/bin/python tests/fuzz/make_gguf_seed.py OUT.gguf
"""

import sys

import gguf
import numpy as np


def main(path: str) -> None:
    n_embd, n_ff, n_vocab = 8, 16, 8
    rng = np.random.default_rng(0)
    w = gguf.GGUFWriter(path, arch="llama")
    w.add_context_length(16)
    w.add_embedding_length(n_embd)
    w.add_block_count(1)
    w.add_feed_forward_length(n_ff)
    w.add_rope_dimension_count(n_embd // 2)
    w.add_head_count(2)
    w.add_head_count_kv(2)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_vocab_size(n_vocab)
    w.add_file_type(0)
    w.add_tokenizer_model("llama")
    w.add_token_list(["<unk>", "<s>", "</s>", "\u2581a", "\u2581b", "a", "b", "c"])
    w.add_token_scores([0.0] * n_vocab)
    w.add_token_types([2, 3, 3, 1, 1, 1, 1, 1])
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)
    w.add_unk_token_id(0)

    def t(*shape):
        return rng.standard_normal(shape, dtype=np.float32)

    w.add_tensor("token_embd.weight", t(n_vocab, n_embd))
    w.add_tensor("output_norm.weight", np.ones(n_embd, dtype=np.float32))
    w.add_tensor("output.weight", t(n_vocab, n_embd))
    for name, shape in [("attn_norm", (n_embd,)), ("attn_q", (n_embd, n_embd)), ("attn_k", (n_embd, n_embd)),
                        ("attn_v", (n_embd, n_embd)), ("attn_output", (n_embd, n_embd)), ("ffn_norm", (n_embd,)),
                        ("ffn_gate", (n_ff, n_embd)), ("ffn_up", (n_ff, n_embd)), ("ffn_down", (n_embd, n_ff))]:
        w.add_tensor(f"blk.0.{name}.weight", t(*shape))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


if __name__ == "__main__":
    main(sys.argv[1])
