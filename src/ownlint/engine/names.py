"""Name resolution: one pass over a module's imports and top-level bindings.

STYLE.md explains why this is ours and not libcst's `QualifiedNameProvider`:
the provider costs several times the parse, and ownlint needs only what a
module imports and defines.

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


def dotted(expr: cst.BaseExpression) -> str | None:
    """`a.b.c` for a Name/Attribute chain; None for anything else."""
    parts: list[str] = []
    while isinstance(expr, cst.Attribute):
        parts.append(expr.attr.value)
        expr = expr.value
    if isinstance(expr, cst.Name):
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

        Imported names are replaced by what they import (`lz.make_queue` ->
        `sycl.ext.oneapi.level_zero.make_queue`); a function or class of this
        module gets the module's prefix; anything else keeps its spelling
        (`self._ze.zeMemFree`, `zeMemFree` after a star import). A callee that
        is not a name chain (`f()()`, `x[0].g`) is spelled `?.g`.
        """
        parts: list[str] = []
        while isinstance(expr, cst.Attribute):
            parts.append(expr.attr.value)
            expr = expr.value
        if isinstance(expr, cst.Name):
            head = expr.value
            if head in self.imports:
                head = self.imports[head]
            elif head in self.functions or head in self.classes:
                head = f"{self.module}.{head}" if self.module else head
        elif isinstance(expr, cst.Call):
            inner = self.qualify(expr.func)
            head = f"{inner}()" if inner else "?"
        else:
            head = "?"
        return ".".join([head, *reversed(parts)])


class _Collector(cst.CSTVisitor):
    def __init__(self, names: ModuleNames, package: str | None) -> None:
        self.names = names
        self.package = package
        self.depth = 0  # function/class nesting

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            full = dotted(alias.name) or ""
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                self.names.imports[alias.asname.name.value] = full
            else:
                head = full.split(".")[0]
                self.names.imports[head] = head

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        mod = _module_of(node, self.package)
        if isinstance(node.names, cst.ImportStar):
            self.names.star_modules.append(mod)
            return
        for alias in node.names:
            name = dotted(alias.name) or ""
            local = name
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local = alias.asname.name.value
            self.names.imports[local] = f"{mod}.{name}" if mod else name

    def visit_Assign(self, node: cst.Assign) -> None:
        # `free_block = release` at module level: an alias of a function
        if (
            self.depth == 0
            and len(node.targets) == 1
            and isinstance(node.targets[0].target, cst.Name)
            and isinstance(node.value, cst.Name)
            and node.value.value in self.names.functions
        ):
            mod = self.names.module
            target = node.value.value
            self.names.imports[node.targets[0].target.value] = f"{mod}.{target}" if mod else target

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        if self.depth == 0:
            self.names.functions[node.name.value] = node
        self.depth += 1
        return True

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.depth -= 1

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        if self.depth == 0:
            self.names.classes[node.name.value] = node
        self.depth += 1
        return True

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.depth -= 1


def collect_names(module: cst.Module, module_name: str, is_package: bool = False) -> ModuleNames:
    """Resolve the imports and top-level definitions of `module`.

    `module_name` is its dotted name within the checked tree (used for
    relative imports and for naming its functions); `is_package` says the
    file is an `__init__.py`.
    """
    names = ModuleNames(module=module_name)
    package = module_name if is_package else module_name.rpartition(".")[0]
    module.visit(_Collector(names, package or None))
    return names
