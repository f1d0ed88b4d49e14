"""kiln.LanguageModel: a language model's ``.pte`` run turn after turn on one
KV cache, its tokens streamed as they are chosen (src/llm's LanguageModel and
Conversation, the runner ``kiln generate`` uses)."""

from __future__ import annotations

import os
import queue
import threading
from typing import Iterator, Sequence

from . import _kiln


class LanguageModel:
    """A decoder-only language model lowered from transformers' export recipe
    (``forward(input_ids [1, seq], cache_position [seq]) -> logits``, its KV
    cache in the program's buffers), with the conversation it holds.

        model = kiln.LanguageModel("model.pte")
        for token in model.generate(first_message_ids, max_new_tokens=64):
            print(token)
        reply = list(model.generate(next_message_ids))  # only the new ids run

    Each ``generate`` call is a turn: its ids run at the cache position where
    the last turn ended (the last turn's final token, chosen but never run,
    first), so the conversation is never prefilled again; the tokens are
    those that generating after the whole conversation from scratch gives.
    ``reset()`` starts a new conversation. Raises KilnError if the file is
    not such a model, naming what is wrong.
    """

    def __init__(self, path: str | os.PathLike, *, threads: int = 1) -> None:
        self._model = _kiln._LanguageModel(os.fspath(path), threads)

    def generate(
        self,
        ids: Sequence[int],
        *,
        max_new_tokens: int = 256,
        temperature: float = 0.0,
        top_k: int = 0,
        top_p: float = 1.0,
        seed: int = 0,
        stop_at_eos: bool = True,
    ) -> Iterator[int]:
        """Runs the turn ``ids`` and yields each generated id as it is chosen
        (an EOS that stops generation included), until an EOS id, ``max_new_tokens``
        or the end of the cache. Greedy with ``temperature`` 0; else samples
        (``top_k``, ``top_p``, ``seed``). Raises KilnError for an empty turn,
        an id outside the vocabulary or a turn the cache has no room for
        (the conversation is then as it was). Leaving the iteration early
        (``close()``, ``break``) stops the turn, and the conversation is as it
        was before it.
        """
        ids = [int(i) for i in ids]
        tokens: queue.Queue = queue.Queue()
        resume = threading.Semaphore(0)
        stop = threading.Event()
        end = object()
        failure: list[BaseException] = []

        # The turn runs on a thread of its own, one token ahead of the caller
        # at most: each waits there until the caller asks for the next.
        def on_token(token: int) -> None:
            tokens.put(token)
            resume.acquire()
            if stop.is_set():
                raise _Stopped

        def run() -> None:
            try:
                self._model.add_turn(ids, max_new_tokens, temperature, top_k, top_p, seed, stop_at_eos, on_token)
            except _Stopped:
                pass
            except BaseException as error:  # noqa: BLE001 - raised again in the caller's thread
                failure.append(error)
            finally:
                tokens.put(end)

        worker = threading.Thread(target=run, name="kiln.LanguageModel.generate", daemon=True)
        worker.start()
        try:
            while (token := tokens.get()) is not end:
                yield token
                resume.release()
        finally:
            stop.set()
            resume.release()
            worker.join()
        if failure:
            raise failure[0]

    def reset(self) -> None:
        """Forgets the conversation: the next turn starts at position 0."""
        self._model.reset()

    @property
    def tokens(self) -> list[int]:
        """Every id of the conversation: each turn's, then what it generated."""
        return self._model.tokens

    @property
    def position(self) -> int:
        """Positions of the cache the conversation has filled."""
        return self._model.position

    @property
    def bos_id(self) -> int | None:
        return self._model.bos_id

    @property
    def eos_ids(self) -> list[int]:
        return self._model.eos_ids

    @property
    def max_context(self) -> int | None:
        """Positions the cache holds (the program's get_max_seq_len), if it says."""
        return self._model.max_context

    @property
    def vocab_size(self) -> int | None:
        return self._model.vocab_size


class _Stopped(Exception):
    """Raised in the token callback to stop a turn whose iteration was left."""
