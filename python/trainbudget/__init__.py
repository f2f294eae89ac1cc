"""trainbudget from Python: the same engine and answers as the CLI (docs/python.md).

    import trainbudget
    r = trainbudget.estimate(model="llama-3.1-8b", method="lora", machine="rtx-4090")
    r["machines"][0]["verdict"]        # "fits", "does_not_fit", ...

Every function takes the field-table keys of its command as keyword arguments (the CLI's flags
without the dashes, "-" as "_": micro_batch=2, seq_len=4096) and returns the dict that
`trainbudget <command> --format json` prints, plus "warnings" and "notes". config="path" reads
a training config (a TrainingArguments / TRL / DeepSpeed JSON or an axolotl / LLaMA-Factory /
torchtune / accelerate YAML, docs/configs.md) under the other
keyword arguments, as --config does.
"""

import json as _json

from . import _trainbudget

__all__ = ["estimate", "plan", "infer", "compare", "fields", "InvalidRequest"]


class InvalidRequest(ValueError):
    """A request the engine refused; .problems lists every problem as dicts with the field,
    the message and the accepted values."""

    def __init__(self, problems):
        self.problems = problems
        super().__init__("; ".join(f"{p['field']}: {p['message']}" for p in problems))


def _value(v):
    # As a JSON request file has them: strings, numbers, booleans for flags; lists join with
    # commas as on the command line (lora_targets=["q", "v"]).
    if isinstance(v, (list, tuple)):
        return ",".join(str(x) for x in v)
    return v


def _run(command, fields):
    request = {k: _value(v) for k, v in fields.items() if v is not None}
    try:
        text = _trainbudget.run(command, _json.dumps(request))
    except ValueError as e:
        message = str(e)
        if message.startswith("invalid_request:"):
            raise InvalidRequest(_json.loads(message[len("invalid_request:"):])) from None
        raise
    return _json.loads(text)


def estimate(**fields):
    """Memory, FLOPs, hours and the verdict of a training job (trainbudget estimate)."""
    return _run("estimate", fields)


def plan(**fields):
    """The best layouts (trainbudget plan)."""
    return _run("plan", fields)


def infer(**fields):
    """The serving budget (trainbudget infer)."""
    return _run("infer", fields)


def compare(**fields):
    """The verdict by task (trainbudget compare)."""
    return _run("compare", fields)


def fields(command="estimate"):
    """The fields a command takes: key, type, default, accepted values, help."""
    return _json.loads(_trainbudget.fields(command))
