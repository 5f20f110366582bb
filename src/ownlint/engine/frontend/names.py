"""Name resolution: one pass over a module's imports and top-level bindings.

This is ours and not libcst's `QualifiedNameProvider`: the provider costs
several times the parse, and ownlint needs only what a module imports and
defines.

Known limits:
- Imports anywhere in the module (also inside functions) are pooled into one
  table; a name imported differently in two functions resolves to the last.
      def f(): from a import x
      def g(): from b import x      # `x` resolves to b.x in both
- Assignments that alias modules (`z = ze`) are not followed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from ownlint.engine.frontend.walk import statements


def dotted(expr: cst.BaseExpression) -> str | None:
    """`a.b.c` for a Name/Attribute chain; None for anything else."""
    parts: list[str] = []
    while type(expr) is cst.Attribute:
        parts.append(expr.attr.value)
        expr = expr.value
    if type(expr) is cst.Name:
        parts.append(expr.value)
        return ".".join(reversed(parts))
    return None


def _module_of(node: cst.ImportFrom, package: str | None) -> str:
    """The absolute module an ImportFrom names (relative ones against `package`)."""
    mod = dotted(node.module) if node.module is not None else ""
    level = len(node.relative)
    if level == 0:
        return mod or ""
    base = (package or "").split(".") if package else []
    if level - 1 > 0:
        base = base[: len(base) - (level - 1)] if level - 1 <= len(base) else []
    return ".".join([p for p in base + ([mod] if mod else []) if p])


@dataclass(slots=True)
class ModuleNames:
    """What a module's names refer to."""

    module: str  # this module's dotted name ("" when unknown)
    imports: dict[str, str] = field(default_factory=dict)  # local name -> qualified name
    star_modules: list[str] = field(default_factory=list)
    functions: dict[str, cst.FunctionDef] = field(default_factory=dict)  # top level defs
    classes: dict[str, cst.ClassDef] = field(default_factory=dict)

    def qualify(self, expr: cst.BaseExpression) -> str | None:
        """The qualified name of a callee or value expression.

        Imported names are replaced by what they import (`ll.make_owner` ->
        `lowlevel.interop.make_owner`); a function or class of this
        module gets the module's prefix; anything else keeps its spelling
        (`self._lib.free`, `free` after a star import). A callee that
        is not a name chain (`f()()`, `x[0].g`) is spelled `?.g`.
        """
        parts: list[str] = []
        while type(expr) is cst.Attribute:
            parts.append(expr.attr.value)
            expr = expr.value
        if type(expr) is cst.Name:
            head = expr.value
            if head in self.imports:
                head = self.imports[head]
            elif head in self.functions or head in self.classes:
                head = f"{self.module}.{head}" if self.module else head
        elif type(expr) is cst.Call:
            inner = self.qualify(expr.func)
            head = f"{inner}()" if inner else "?"
        else:
            head = "?"
        return ".".join([head, *reversed(parts)])


def collect_names(
    module: cst.Module, module_name: str, is_package: bool = False, source: str | None = None
) -> ModuleNames:
    """Resolve the imports and top-level definitions of `module`.

    `module_name` is its dotted name within the checked tree (used for
    relative imports and for naming its functions); `is_package` says the
    file is an `__init__.py`; `source`, the module's text if at hand, can
    spare a walk over every statement.
    """
    names = ModuleNames(module=module_name)
    package = (module_name if is_package else module_name.rpartition(".")[0]) or None
    for stmt in module.body:  # top-level definitions
        if type(stmt) is cst.FunctionDef:
            names.functions[stmt.name.value] = stmt
        elif type(stmt) is cst.ClassDef:
            names.classes[stmt.name.value] = stmt
    # imports anywhere; where the source spells `import` no more often than
    # the top level has import statements (each spells it once at least),
    # there are none below the top level to look for
    top = [
        small
        for stmt in module.body
        if type(stmt) is cst.SimpleStatementLine
        for small in stmt.body
        if type(small) in (cst.Import, cst.ImportFrom)
    ]
    everywhere = source is None or source.count("import") > len(top)
    for node in statements(module) if everywhere else top:
        if type(node) is cst.Import:
            for alias in node.names:
                full = dotted(alias.name) or ""
                if alias.asname is not None and type(alias.asname.name) is cst.Name:
                    names.imports[alias.asname.name.value] = full
                else:
                    head = full.split(".")[0]
                    names.imports[head] = head
        elif type(node) is cst.ImportFrom:
            mod = _module_of(node, package)
            if isinstance(node.names, cst.ImportStar):
                names.star_modules.append(mod)
                continue
            for alias in node.names:
                name = dotted(alias.name) or ""
                local = name
                if alias.asname is not None and type(alias.asname.name) is cst.Name:
                    local = alias.asname.name.value
                names.imports[local] = f"{mod}.{name}" if mod else name
    for stmt in module.body:  # `free_block = release` at module level: an alias of a function
        if type(stmt) is not cst.SimpleStatementLine:
            continue
        for small in stmt.body:
            if (
                type(small) is cst.Assign
                and len(small.targets) == 1
                and type(small.targets[0].target) is cst.Name
                and type(small.value) is cst.Name
                and small.value.value in names.functions
            ):
                target = small.value.value
                names.imports[small.targets[0].target.value] = f"{module_name}.{target}" if module_name else target
    return names
