"""LibCST codemod commands: ``modules: ['codemod.commands']`` in ``.libcst.codemod.yaml`` lets
``python -m libcst.tool codemod decouple_class.DecoupleClassCommand ...`` find them (``docs/api.md``)."""
