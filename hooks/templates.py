"""MkDocs hook: Jinja compiles each template once per process, not once per build.

``mkdocs serve`` builds with new Jinja environments every time (the theme's and
mkdocstrings' Python handler's), so every template was compiled again on every
rebuild. Each environment takes an in-memory bytecode cache kept for this process;
Jinja checks a cached template against its source's checksum, so an edited
template is compiled again.
"""

import jinja2


class MemoryBytecodeCache(jinja2.BytecodeCache):
    """Compiled templates by Jinja's bucket key (the template's name and file)."""

    def __init__(self):
        self.compiled: dict[str, bytes] = {}

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        if bucket.key in self.compiled:
            bucket.bytecode_from_string(self.compiled[bucket.key])

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self.compiled[bucket.key] = bucket.bytecode_to_string()


# One per environment: compiled code depends on the environment's settings.
CACHES = {"theme": MemoryBytecodeCache(), "mkdocstrings": MemoryBytecodeCache()}


def on_files(files, config):
    handler = config.plugins["mkdocstrings"].get_handler("python")  # made now
    handler.env.bytecode_cache = CACHES["mkdocstrings"]
    return files


def on_env(env, config, files):
    env.bytecode_cache = CACHES["theme"]
    return env
