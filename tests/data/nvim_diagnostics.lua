-- Open a file in headless Neovim, attach `ownlint lsp` with the built-in client,
-- wait for its diagnostics, write them to a JSON file and quit.
-- Parameters come in the environment (Neovim 0.7 has no `-l` to pass arguments):
-- OWNLINT_NVIM_FILE, OWNLINT_NVIM_OUT, OWNLINT_NVIM_PYTHON, OWNLINT_NVIM_WAIT_MS.
local file = os.getenv("OWNLINT_NVIM_FILE")
local out = os.getenv("OWNLINT_NVIM_OUT")
local python = os.getenv("OWNLINT_NVIM_PYTHON")
local wait_ms = tonumber(os.getenv("OWNLINT_NVIM_WAIT_MS") or "20000")

vim.cmd("edit " .. vim.fn.fnameescape(file))
local buf = vim.api.nvim_get_current_buf()
local config = {
  name = "ownlint",
  cmd = { python, "-m", "ownlint", "lsp" },
  root_dir = vim.fn.fnamemodify(file, ":p:h"),
}
if vim.lsp.start then -- Neovim 0.8 and later
  vim.lsp.start(config)
else -- Neovim 0.7
  vim.lsp.buf_attach_client(buf, vim.lsp.start_client(config))
end

local arrived = vim.wait(wait_ms, function()
  return #vim.diagnostic.get(buf) > 0
end, 50)

local found = {}
for _, d in ipairs(vim.diagnostic.get(buf)) do
  local lsp = (d.user_data or {}).lsp or {}
  table.insert(found, {
    code = d.code or lsp.code,
    lnum = d.lnum,
    col = d.col,
    severity = d.severity,
    source = d.source or lsp.source,
    message = d.message,
  })
end
local handle = assert(io.open(out, "w"))
handle:write(vim.fn.json_encode({ arrived = arrived, diagnostics = found }))
handle:close()
vim.cmd("qall!")
