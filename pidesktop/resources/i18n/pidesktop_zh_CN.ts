<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name></name>
    <message>
        <source>Instructions</source>
        <translation>指令</translation>
    </message>
    <message>
        <source>How the model should work in these projects, e.g. “answer in British English”. Sent as your own notes, never above the app’s rules.</source>
        <translation>模型在这些项目中应如何工作，例如“用英式英语回答”。作为你自己的备注发送，优先级绝不会高于应用的规则。</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>记忆</translation>
    </message>
    <message>
        <source>What the model should know about every project in the group.</source>
        <translation>组内每个项目都需要模型了解的内容。</translation>
    </message>
    <message>
        <source>Project group: %1</source>
        <translation>项目组：%1</translation>
    </message>
    <message>
        <source>Every chat in a project of this group gets these notes, then its own project’s memory.</source>
        <translation>此组内各项目的每个对话都会先收到这些备注，再收到所在项目自己的记忆。</translation>
    </message>
    <message>
        <source>Project group: its memory and instructions go with every chat in its projects</source>
        <translation>项目组：它的记忆和指令会随组内项目的每个对话一起发送</translation>
    </message>
    <message>
        <source>The folder %1 can’t be found. Its chats are kept.</source>
        <translation>找不到文件夹 %1。该项目的对话仍会保留。</translation>
    </message>
    <message>
        <source>%1
Hover and click + for a new chat in this project; right-click for more.</source>
        <translation>%1
悬停后点击 + 可在此项目中新建对话；右键单击可查看更多操作。</translation>
    </message>
</context>
<context>
    <name>ApprovalCard</name>
    <message>
        <source>Open file</source>
        <translation>打开文件</translation>
    </message>
    <message>
        <source>Close this card (the plan and its file stay)</source>
        <translation>关闭此卡片（计划及其文件会保留）</translation>
    </message>
    <message>
        <source>What should change? (sent with Reject)</source>
        <translation>需要修改什么？（随“拒绝”一起发送）</translation>
    </message>
    <message>
        <source>Approve and allow edits</source>
        <translation>批准并允许编辑</translation>
    </message>
    <message>
        <source>Switch to Agent mode and carry it out; file edits in the project run without asking</source>
        <translation>切换到智能体模式并执行；项目中的文件编辑无需询问</translation>
    </message>
    <message>
        <source>Approve, ask first</source>
        <translation>批准，先询问</translation>
    </message>
    <message>
        <source>Switch to Agent mode and carry it out; every edit and command waits for your OK</source>
        <translation>切换到智能体模式并执行；每次编辑和命令都等待你的确认</translation>
    </message>
    <message>
        <source>Reject</source>
        <translation>拒绝</translation>
    </message>
    <message>
        <source>Send the feedback back; the model proposes again (Ctrl+Enter in the feedback field)</source>
        <translation>发回反馈，模型会重新提出（在反馈框中按 Ctrl+Enter）</translation>
    </message>
    <message>
        <source>Ask again</source>
        <translation>再问一次</translation>
    </message>
    <message>
        <source>Ask the model to propose it once more</source>
        <translation>请模型再提出一次</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>Hide</source>
        <translation>隐藏</translation>
    </message>
    <message>
        <source>Show plan</source>
        <translation>显示计划</translation>
    </message>
    <message>
        <source>Show goal</source>
        <translation>显示目标</translation>
    </message>
    <message>
        <source>Plan waiting for your approval</source>
        <translation>计划等待你批准</translation>
    </message>
    <message>
        <source>Goal waiting for your approval</source>
        <translation>目标等待你批准</translation>
    </message>
    <message>
        <source>Plan approved</source>
        <translation>计划已批准</translation>
    </message>
    <message>
        <source>Goal approved</source>
        <translation>目标已批准</translation>
    </message>
    <message>
        <source>Plan not answered</source>
        <translation>计划未获答复</translation>
    </message>
    <message>
        <source>Goal not answered</source>
        <translation>目标未获答复</translation>
    </message>
    <message>
        <source>Plan</source>
        <translation>计划</translation>
    </message>
    <message>
        <source>Nothing has been done yet. Approve to switch to Agent mode and carry it out, or reject with what to change.</source>
        <translation>目前还没有执行任何操作。批准后将切换到智能体模式并执行；也可以拒绝并说明需要修改的地方。</translation>
    </message>
    <message>
        <source>The app restarted before you answered, so this proposal can no longer be approved. Ask again to get it proposed once more.</source>
        <translation>你答复之前应用已重启，因此这份提议无法再批准。点击“再问一次”让模型重新提出。</translation>
    </message>
    <message>
        <source>Waiting to start.</source>
        <translation>等待开始。</translation>
    </message>
    <message>
        <source>Being carried out in Agent mode…</source>
        <translation>正在智能体模式下执行…</translation>
    </message>
    <message>
        <source>Carried out in Agent mode.</source>
        <translation>已在智能体模式下执行。</translation>
    </message>
    <message>
        <source>Carrying it out failed; see the reply below.</source>
        <translation>执行失败；请查看下方的回复。</translation>
    </message>
    <message>
        <source>Carrying it out was interrupted (stopped, or the app restarted). Send a message to continue.</source>
        <translation>执行已中断（被停止或应用已重启）。发送一条消息即可继续。</translation>
    </message>
</context>
<context>
    <name>AttachmentTray</name>
    <message>
        <source>Pasted text</source>
        <translation>粘贴的文本</translation>
    </message>
    <message>
        <source>Pasted text (%1 lines).txt</source>
        <translation>粘贴的文本（%1 行）.txt</translation>
    </message>
    <message>
        <source>Pasted image.png</source>
        <translation>粘贴的图片.png</translation>
    </message>
    <message>
        <source>The pasted image could not be read.</source>
        <translation>无法读取粘贴的图片。</translation>
    </message>
    <message>
        <source>“%1” could not be added. Details says why.</source>
        <translation>无法添加“%1”。原因见详情。</translation>
    </message>
</context>
<context>
    <name>AutomationsDialog</name>
    <message>
        <source>Runs on %1</source>
        <translation>在 %1 上运行</translation>
    </message>
    <message>
        <source>another computer</source>
        <translation>另一台电脑</translation>
    </message>
    <message>
        <source>Turned on on %1 (Settings &gt; Sync keeps automations the same on your computers). An automation runs on one computer at a time: turning it on here moves it to this one.</source>
        <translation>已在 %1 上开启（设置 &gt; 同步让各台电脑的自动化保持一致）。自动化同一时间只在一台电脑上运行：在这里开启会把它移到这台电脑。</translation>
    </message>
    <message>
        <source>Automations</source>
        <translation>自动化任务</translation>
    </message>
    <message>
        <source>Prompts that run on a schedule, each run in a new chat or the same one, with the result in the inbox. They run while pidesktop is open; runs missed while it was closed run once at the next start.</source>
        <translation>定时运行的提示词，每次在新对话或同一个对话中运行，结果会放进收件箱。它们在 pidesktop 打开时运行；关闭期间错过的运行会在下次启动时补运行一次。</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Next run</source>
        <translation>下次运行</translation>
    </message>
    <message>
        <source>Last result</source>
        <translation>上次结果</translation>
    </message>
    <message>
        <source>No automations yet. Fill in the form to create the first one.</source>
        <translation>还没有自动化任务。填写表单即可创建第一个。</translation>
    </message>
    <message>
        <source>New automation</source>
        <translation>新建自动化任务</translation>
    </message>
    <message>
        <source>Delete…</source>
        <translation>删除…</translation>
    </message>
    <message>
        <source>Run this automation at once, in a new chat</source>
        <translation>立即在新对话中运行此自动化任务</translation>
    </message>
    <message>
        <source>&amp;Run now</source>
        <translation>立即运行(&amp;R)</translation>
    </message>
    <message>
        <source>R&amp;uns</source>
        <translation>运行记录(&amp;U)</translation>
    </message>
    <message>
        <source>Started</source>
        <translation>开始时间</translation>
    </message>
    <message>
        <source>Result</source>
        <translation>结果</translation>
    </message>
    <message>
        <source>Chat</source>
        <translation>对话</translation>
    </message>
    <message>
        <source>No runs yet.</source>
        <translation>还没有运行记录。</translation>
    </message>
    <message>
        <source>Off</source>
        <translation>已停用</translation>
    </message>
    <message>
        <source>Not scheduled</source>
        <translation>未安排</translation>
    </message>
    <message>
        <source>Never run</source>
        <translation>从未运行</translation>
    </message>
    <message>
        <source>Running…</source>
        <translation>正在运行…</translation>
    </message>
    <message>
        <source>Done</source>
        <translation>已完成</translation>
    </message>
    <message>
        <source>Stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source> (late)</source>
        <translation> （延迟）</translation>
    </message>
    <message>
        <source>Stopped: </source>
        <translation>已停止：</translation>
    </message>
    <message>
        <source>Failed: </source>
        <translation>失败： </translation>
    </message>
    <message>
        <source>Open chat</source>
        <translation>打开对话</translation>
    </message>
    <message>
        <source>In the Trash</source>
        <translation>在回收站中</translation>
    </message>
    <message>
        <source>Chat deleted</source>
        <translation>对话已删除</translation>
    </message>
    <message>
        <source>your changes to “%1”</source>
        <translation>对“%1”的更改</translation>
    </message>
    <message>
        <source>your new automation</source>
        <translation>新的自动化任务</translation>
    </message>
    <message>
        <source>Edit automation</source>
        <translation>编辑自动化任务</translation>
    </message>
    <message>
        <source>Save and &amp;run now</source>
        <translation>保存并立即运行(&amp;R)</translation>
    </message>
    <message>
        <source>Automations run only while the pidesktop window is open</source>
        <translation>自动化任务只在 pidesktop 窗口打开时运行</translation>
    </message>
    <message>
        <source>This automation is running now; it never runs twice at once</source>
        <translation>此自动化任务正在运行；它不会同时运行两次</translation>
    </message>
    <message>
        <source>Save this automation, then run it at once in a new chat</source>
        <translation>保存此自动化任务，然后立即在新对话中运行</translation>
    </message>
    <message>
        <source>Delete automation</source>
        <translation>删除自动化任务</translation>
    </message>
    <message>
        <source>Delete “%1”? Its run history goes too; the chats it made stay.</source>
        <translation>要删除“%1”吗？它的运行记录也会一并删除；它创建的对话会保留。</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>This automation is running now; it never runs twice at once.</source>
        <translation>此自动化任务正在运行；同一任务不会同时运行两次。</translation>
    </message>
</context>
<context>
    <name>BackupDialog</name>
    <message>
        <source>Back up database</source>
        <translation>备份数据库</translation>
    </message>
    <message>
        <source>Writes a consistent copy of the chat database (pi.sqlite), readable only by you. It is checked before it is kept. pidesktop keeps running meanwhile.</source>
        <translation>写入聊天数据库（pi.sqlite）的一致副本，仅你本人可读。副本在保留前会经过检查。期间 pidesktop 可照常运行。</translation>
    </message>
    <message>
        <source>Full path of the new backup file</source>
        <translation>新备份文件的完整路径</translation>
    </message>
    <message>
        <source>Back up</source>
        <translation>备份</translation>
    </message>
    <message>
        <source>SQLite database (*.sqlite *.db)</source>
        <translation>SQLite 数据库 (*.sqlite *.db)</translation>
    </message>
    <message>
        <source>Backed up and verified: %1 (%2).</source>
        <translation>已备份并校验：%1（%2）。</translation>
    </message>
</context>
<context>
    <name>BellButton</name>
    <message>
        <source>Inbox (Ctrl+Shift+I)</source>
        <translation>收件箱（Ctrl+Shift+I）</translation>
    </message>
    <message>
        <source>Inbox</source>
        <translation>收件箱</translation>
    </message>
    <message>
        <source>Inbox, %1 unread</source>
        <translation>收件箱，%1 条未读</translation>
    </message>
</context>
<context>
    <name>BranchSwitcher</name>
    <message>
        <source>This pi session has branches: pick the one to read</source>
        <translation>此 pi 会话有多个分支：选择要查看的分支</translation>
    </message>
    <message>
        <source>Current branch · %1 of %2</source>
        <translation>当前分支 · %1 / %2</translation>
    </message>
    <message>
        <source>Branch %1 of %2</source>
        <translation>分支 %1 / %2</translation>
    </message>
    <message>
        <source>(no messages)</source>
        <translation>（无消息）</translation>
    </message>
    <message>
        <source>current</source>
        <translation>当前</translation>
    </message>
</context>
<context>
    <name>CacheDialog</name>
    <message>
        <source>Clean caches</source>
        <translation>清理缓存</translation>
    </message>
    <message>
        <source>Only these folders are emptied. Chats, attachments, secrets and settings are never touched; pidesktop rebuilds what it needs.</source>
        <translation>只会清空这些文件夹。对话、附件、密钥和设置绝不会被动到；pidesktop 会按需重建。</translation>
    </message>
    <message>
        <source>Folder</source>
        <translation>文件夹</translation>
    </message>
    <message>
        <source>Files</source>
        <translation>文件数</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <source>A cleanup is waiting: it runs the next time pidesktop starts.</source>
        <translation>有一次清理在等待：它会在 pidesktop 下次启动时运行。</translation>
    </message>
    <message>
        <source>The last cleanup freed %1 (%2).</source>
        <translation>上次清理释放了 %1（%2）。</translation>
    </message>
    <message>
        <source>1 file</source>
        <translation>1 个文件</translation>
    </message>
    <message>
        <source>%1 files</source>
        <translation>%1 个文件</translation>
    </message>
    <message>
        <source>Restart pidesktop, empty the cache folders and free %1?</source>
        <translation>要重启 pidesktop、清空缓存文件夹并释放 %1 吗？</translation>
    </message>
    <message>
        <source>Total: %1</source>
        <translation>合计：%1</translation>
    </message>
    <message>
        <source>Restart and clean…</source>
        <translation>重启并清理…</translation>
    </message>
    <message>
        <source>Some entries could not be removed:</source>
        <translation>有些项目无法删除：</translation>
    </message>
    <message>
        <source>pidesktop is using these folders, so they are emptied while it restarts, before your chats open again.</source>
        <translation>pidesktop 正在使用这些文件夹，因此会在重启期间、你的对话重新打开之前清空它们。</translation>
    </message>
    <message>
        <source>%1 (window state)</source>
        <translation>%1（窗口状态）</translation>
    </message>
    <message>
        <source>%1 — a link, skipped</source>
        <translation>%1 —— 是链接，已跳过</translation>
    </message>
    <message>
        <source>%1 — not a folder, skipped</source>
        <translation>%1 —— 不是文件夹，已跳过</translation>
    </message>
    <message>
        <source>Clean</source>
        <translation>清理</translation>
    </message>
</context>
<context>
    <name>ChatController</name>
    <message>
        <source>Delete chat</source>
        <translation>删除对话</translation>
    </message>
    <message>
        <source>Delete “%1”?</source>
        <translation>要删除“%1”吗？</translation>
    </message>
    <message>
        <source>It moves to the Trash (in the ⋯ menu), where you can restore it or delete it for good.</source>
        <translation>它会移到回收站（在 ⋯ 菜单中），你可以在那里恢复或永久删除它。</translation>
    </message>
    <message>
        <source>Summarising earlier messages…</source>
        <translation>正在汇总较早的消息…</translation>
    </message>
    <message>
        <source>Nothing to compact yet: this chat is still short enough to keep whole.</source>
        <translation>暂时无需压缩：这个对话还很短，可以完整保留。</translation>
    </message>
    <message>
        <source>Earlier messages summarised</source>
        <translation>较早的消息已汇总为摘要</translation>
    </message>
    <message>
        <source>Not sent. Your message is kept here: send it again once that is fixed.</source>
        <translation>未发送。消息仍保留在这里：问题解决后再发送即可。</translation>
    </message>
    <message>
        <source>Not sent: the chat could not be created.</source>
        <translation>未发送：无法创建对话。</translation>
    </message>
    <message>
        <source>Sent into the running reply; the model reads it at its next step.</source>
        <translation>已发送到正在进行的回复中；模型会在下一步读取它。</translation>
    </message>
    <message>
        <source>Not sent: too long for the model’s context window.</source>
        <translation>未发送：超出了模型的上下文窗口。</translation>
    </message>
    <message>
        <source>Removed %1. The text alone is still too long: shorten it.</source>
        <translation>已移除 %1。仅文字仍然太长：请缩短。</translation>
    </message>
    <message>
        <source>Removed %1 so the message fits. Press Enter to send.</source>
        <translation>已移除 %1，消息现在放得下。按 Enter 发送。</translation>
    </message>
    <message>
        <source>Copied to the clipboard</source>
        <translation>已复制到剪贴板</translation>
    </message>
    <message>
        <source>Delete message</source>
        <translation>删除消息</translation>
    </message>
    <message>
        <source>Delete this message?</source>
        <translation>要删除这条消息吗？</translation>
    </message>
    <message>
        <source>It is removed from the conversation. A reply it started is kept as a revision.</source>
        <translation>这条消息将从对话中移除。由它引出的回复会作为修订版本保留。</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Stopped before an answer: your message is back here to edit or send.</source>
        <translation>已在回答前停止：你的消息已放回这里，可以编辑或重新发送。</translation>
    </message>
</context>
<context>
    <name>Chip</name>
    <message>
        <source>Remove this attachment</source>
        <translation>移除此附件</translation>
    </message>
    <message>
        <source>Adding %1…</source>
        <translation>正在添加 %1…</translation>
    </message>
</context>
<context>
    <name>ChoosePage</name>
    <message>
        <source>Choose a new place for your data</source>
        <translation>为你的数据选择新位置</translation>
    </message>
    <message>
        <source>Your chats, attachments and settings are now in %1.</source>
        <translation>你的对话、附件和设置目前位于 %1。</translation>
    </message>
    <message>
        <source>An empty folder, or a new folder name, e.g. /mnt/big/pidesktop</source>
        <translation>一个空文件夹或新文件夹名，例如 /mnt/big/pidesktop</translation>
    </message>
    <message>
        <source>pidesktop copies everything there, checks the copy, and then uses it. The current folder is kept as a backup until you remove it.</source>
        <translation>pidesktop 会把所有内容复制过去、检查副本，然后改用它。当前文件夹会作为备份保留，直到你删除它。</translation>
    </message>
    <message>
        <source>New folder</source>
        <translation>新文件夹</translation>
    </message>
    <message>
        <source>This data folder was chosen with PI_DESKTOP_DATA_DIR (or --data-dir); it cannot be moved from here.</source>
        <translation>此数据文件夹由 PI_DESKTOP_DATA_DIR（或 --data-dir）指定，无法在这里移动。</translation>
    </message>
    <message>
        <source>Enter the full path of the folder, starting with /.</source>
        <translation>请输入以 / 开头的文件夹完整路径。</translation>
    </message>
    <message>
        <source>This folder holds an earlier, unfinished copy of your data; the move picks up from there.</source>
        <translation>此文件夹里有一份之前未完成的数据副本，移动会从那里继续。</translation>
    </message>
    <message>
        <source>This empty folder can be used.</source>
        <translation>可以使用这个空文件夹。</translation>
    </message>
    <message>
        <source>This folder will be created.</source>
        <translation>将创建此文件夹。</translation>
    </message>
</context>
<context>
    <name>Composer</name>
    <message>
        <source>Thinking: off</source>
        <translation>思考：关闭</translation>
    </message>
    <message>
        <source>Thinking: minimal</source>
        <translation>思考：最少</translation>
    </message>
    <message>
        <source>Thinking: low</source>
        <translation>思考：低</translation>
    </message>
    <message>
        <source>Thinking: medium</source>
        <translation>思考：中</translation>
    </message>
    <message>
        <source>Thinking: high</source>
        <translation>思考：高</translation>
    </message>
    <message>
        <source>Thinking: extra high</source>
        <translation>思考：很高</translation>
    </message>
    <message>
        <source>Thinking: max</source>
        <translation>思考：最高</translation>
    </message>
    <message>
        <source>Thinking: model default</source>
        <translation>思考：模型默认</translation>
    </message>
    <message>
        <source>Agent</source>
        <translation>智能体</translation>
    </message>
    <message>
        <source>Plan</source>
        <translation>计划</translation>
    </message>
    <message>
        <source>Goal</source>
        <translation>目标</translation>
    </message>
    <message>
        <source>Agent: answers and works on the request directly</source>
        <translation>智能体：直接回答并处理请求</translation>
    </message>
    <message>
        <source>Plan: proposes a step-by-step plan for you to approve first</source>
        <translation>计划：先提出分步计划，经你批准后再执行</translation>
    </message>
    <message>
        <source>Goal: agrees on the outcome and how to check it first</source>
        <translation>目标：先商定结果以及如何检验</translation>
    </message>
    <message>
        <source>Attach</source>
        <translation>附件</translation>
    </message>
    <message>
        <source>Attach files (or drop them here)</source>
        <translation>添加文件（或拖放到这里）</translation>
    </message>
    <message>
        <source>Send</source>
        <translation>发送</translation>
    </message>
    <message>
        <source>Send (Enter)</source>
        <translation>发送（Enter）</translation>
    </message>
    <message>
        <source>Steer</source>
        <translation>引导</translation>
    </message>
    <message>
        <source>Send this into the running reply: the model reads it at its next step (Ctrl+Enter)</source>
        <translation>发送到正在进行的回复中：模型会在下一步读取它（Ctrl+Enter）</translation>
    </message>
    <message>
        <source>How much the model thinks before it answers (this chat)</source>
        <translation>模型回答前思考的程度（仅此对话）</translation>
    </message>
    <message>
        <source>Permissions for this chat</source>
        <translation>此聊天的权限</translation>
    </message>
    <message>
        <source>The model that answers in this chat</source>
        <translation>在此对话中回答的模型</translation>
    </message>
    <message>
        <source>Editing an earlier message. Send replaces it and what followed; the old version stays as a revision.</source>
        <translation>正在编辑之前的消息。发送后将替换它及其后的内容；旧版本会作为修订版本保留。</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Stop editing and keep the conversation as it is (Esc)</source>
        <translation>停止编辑，保持对话原样（Esc）</translation>
    </message>
    <message>
        <source>Default model</source>
        <translation>默认模型</translation>
    </message>
    <message>
        <source>Follows Settings &gt; General. </source>
        <translation>跟随“设置 &gt; 通用”。</translation>
    </message>
    <message>
        <source>Attach files</source>
        <translation>添加文件</translation>
    </message>
    <message>
        <source>Adding attachments… Send when they are ready.</source>
        <translation>正在添加附件…完成后再发送。</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Stop the reply (Esc)</source>
        <translation>停止回复（Esc）</translation>
    </message>
</context>
<context>
    <name>ConfirmPage</name>
    <message>
        <source>Ready to move</source>
        <translation>准备移动</translation>
    </message>
    <message>
        <source>pidesktop will restart to move your data.</source>
        <translation>pidesktop 将重新启动以移动你的数据。</translation>
    </message>
    <message>
        <source>When you press Restart and move:
1. pidesktop closes.
2. It starts again and copies your data, showing the progress. Chats are not available until the copy is checked.
3. It opens the new folder. If anything goes wrong, it keeps using the current one.

The current folder is kept as a backup; remove it later with Settings &gt; Data &gt; Remove old copies.</source>
        <translation>按下“重启并移动”后：
1. pidesktop 关闭。
2. 它重新启动并复制你的数据，同时显示进度。副本检查完成前无法使用对话。
3. 它打开新文件夹。如果出现任何问题，会继续使用当前文件夹。

当前文件夹会作为备份保留；之后可在“设置 &gt; 数据 &gt; 删除旧副本”中删除。</translation>
    </message>
    <message>
        <source>From: %1
Size: %2</source>
        <translation>原位置：%1
大小：%2</translation>
    </message>
</context>
<context>
    <name>Counts</name>
    <message>
        <source>1 chat</source>
        <translation>1 个对话</translation>
    </message>
    <message>
        <source>%1 chats</source>
        <translation>%1 个对话</translation>
    </message>
    <message>
        <source>1 message</source>
        <translation>1 条消息</translation>
    </message>
    <message>
        <source>%1 messages</source>
        <translation>%1 条消息</translation>
    </message>
    <message>
        <source>%1, %2</source>
        <translation>%1，%2</translation>
    </message>
</context>
<context>
    <name>CrashReportsRow</name>
    <message>
        <source>Remove crash reports</source>
        <translation>删除崩溃报告</translation>
    </message>
    <message>
        <source>Delete the crash reports kept on this computer</source>
        <translation>删除保存在此电脑上的崩溃报告</translation>
    </message>
    <message>
        <source>1 crash report from %1, kept on this computer and never sent (&lt;a href=&apos;#&apos;&gt;show&lt;/a&gt;).</source>
        <translation>1 份崩溃报告（%1），保存在此电脑上，从未发送（&lt;a href=&apos;#&apos;&gt;显示&lt;/a&gt;）。</translation>
    </message>
    <message>
        <source>%1 crash reports, the newest from %2, kept on this computer and never sent (&lt;a href=&apos;#&apos;&gt;show&lt;/a&gt;).</source>
        <translation>%1 份崩溃报告，最新一份来自 %2，保存在此电脑上，从未发送（&lt;a href=&apos;#&apos;&gt;显示&lt;/a&gt;）。</translation>
    </message>
</context>
<context>
    <name>DataPage</name>
    <message>
        <source>Data</source>
        <translation>数据</translation>
    </message>
    <message>
        <source>Data folder</source>
        <translation>数据文件夹</translation>
    </message>
    <message>
        <source>Open folder</source>
        <translation>打开文件夹</translation>
    </message>
    <message>
        <source>Move data folder…</source>
        <translation>移动数据文件夹…</translation>
    </message>
    <message>
        <source>Maintenance</source>
        <translation>维护</translation>
    </message>
    <message>
        <source>Verify data</source>
        <translation>校验数据</translation>
    </message>
    <message>
        <source>Clean caches…</source>
        <translation>清理缓存…</translation>
    </message>
    <message>
        <source>Remove old copies…</source>
        <translation>删除旧副本…</translation>
    </message>
    <message>
        <source>Old database copies…</source>
        <translation>旧数据库副本…</translation>
    </message>
    <message>
        <source>Workflows…</source>
        <translation>工作流…</translation>
    </message>
    <message>
        <source>Check the database and transcripts for problems.</source>
        <translation>检查数据库和对话记录是否有问题。</translation>
    </message>
    <message>
        <source>Back up everything…</source>
        <translation>全部备份…</translation>
    </message>
    <message>
        <source>Back up to S3…</source>
        <translation>备份到 S3…</translation>
    </message>
    <message>
        <source>Repair…</source>
        <translation>修复…</translation>
    </message>
    <message>
        <source>Restore…</source>
        <translation>恢复…</translation>
    </message>
    <message>
        <source>Restore from S3…</source>
        <translation>从 S3 恢复…</translation>
    </message>
    <message>
        <source>Copy database file…</source>
        <translation>复制数据库文件…</translation>
    </message>
    <message>
        <source>Rebuild a damaged database from your chat files, and add what it missed.</source>
        <translation>用聊天文件重建损坏的数据库，并补上它遗漏的内容。</translation>
    </message>
    <message>
        <source>Chats, attachments and settings, encrypted, into a backup folder.</source>
        <translation>将聊天、附件和设置加密保存到备份文件夹。</translation>
    </message>
    <message>
        <source>Chats, attachments and settings, encrypted, into the Settings &gt; Sync bucket.</source>
        <translation>聊天、附件和设置，加密后存入“设置 &gt; 同步”的存储桶。</translation>
    </message>
    <message>
        <source>Rebuild a data folder from a backup, into a new folder.</source>
        <translation>从备份重建数据文件夹，放入一个新文件夹。</translation>
    </message>
    <message>
        <source>The same from a backup in the Settings &gt; Sync bucket; pick which one.</source>
        <translation>同上，从“设置 &gt; 同步”存储桶中的备份恢复；可选择哪一个。</translation>
    </message>
    <message>
        <source>Save a checked copy of the chat database file alone.</source>
        <translation>仅保存一份经过检查的聊天数据库文件副本。</translation>
    </message>
    <message>
        <source>Free space used by caches pidesktop can rebuild.</source>
        <translation>释放 pidesktop 可重建的缓存所占空间。</translation>
    </message>
    <message>
        <source>Delete data folders kept after a move.</source>
        <translation>删除移动后保留的数据文件夹。</translation>
    </message>
    <message>
        <source>Copies of the database kept when pidesktop updated it.</source>
        <translation>pidesktop 更新数据库时保留的副本。</translation>
    </message>
    <message>
        <source>Advanced</source>
        <translation>高级</translation>
    </message>
    <message>
        <source>For pi&apos;s multi-step workflows (the pi-workflows command): the status of their state file, a check and a backup. If you do not use them, there is nothing to do here.</source>
        <translation>用于 pi 的多步骤工作流（pi-workflows 命令）：其状态文件的状态、检查和备份。如果你不使用它们，这里无需任何操作。</translation>
    </message>
    <message>
        <source>Not available for a data folder set by PI_DESKTOP_DATA_DIR.</source>
        <translation>由 PI_DESKTOP_DATA_DIR 指定的数据文件夹不可用此功能。</translation>
    </message>
    <message>
        <source>This data folder was chosen with PI_DESKTOP_DATA_DIR (or --data-dir), so it is managed by whoever set it: pidesktop does not move it or clean it up. Unset it to manage this installation&apos;s own data folder here.</source>
        <translation>此数据文件夹由 PI_DESKTOP_DATA_DIR（或 --data-dir）指定，由设置它的人管理：pidesktop 不会移动或清理它。取消该设置后，即可在这里管理本安装自己的数据文件夹。</translation>
    </message>
    <message>
        <source>A move to %1 is waiting: it runs the next time pidesktop starts.</source>
        <translation>移动到 %1 的操作正在等待：将在 pidesktop 下次启动时执行。</translation>
    </message>
</context>
<context>
    <name>Dialogs</name>
    <message>
        <source>Offline demo (no AI)</source>
        <translation>离线演示（无 AI）</translation>
    </message>
</context>
<context>
    <name>DiscardQuestion</name>
    <message>
        <source>Unsaved changes</source>
        <translation>未保存的更改</translation>
    </message>
    <message>
        <source>Save %1?</source>
        <translation>保存%1吗？</translation>
    </message>
    <message>
        <source>Discard throws away what you typed.</source>
        <translation>放弃会丢掉你输入的内容。</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>Discard</source>
        <translation>放弃</translation>
    </message>
    <message>
        <source>Keep editing</source>
        <translation>继续编辑</translation>
    </message>
</context>
<context>
    <name>ErrorDetailsDialog</name>
    <message>
        <source>Error details</source>
        <translation>错误详情</translation>
    </message>
    <message>
        <source>What went wrong, newest first. Nothing here was sent anywhere; copy it into a bug report if you like.</source>
        <translation>出了什么问题（最新的在前）。这些内容不会发送到任何地方；需要时可复制到问题报告中。</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
</context>
<context>
    <name>FileChanges</name>
    <message>
        <source>Files changed</source>
        <translation>已更改的文件</translation>
    </message>
    <message>
        <source>The files this chat’s tools changed (Ctrl+Shift+E)</source>
        <translation>此聊天的工具更改过的文件（Ctrl+Shift+E）</translation>
    </message>
    <message>
        <source>Files changed · %1</source>
        <translation>已更改的文件 · %1</translation>
    </message>
</context>
<context>
    <name>FilesPanel</name>
    <message>
        <source>created</source>
        <translation>已创建</translation>
    </message>
    <message>
        <source>written</source>
        <translation>已写入</translation>
    </message>
    <message>
        <source>edited</source>
        <translation>已编辑</translation>
    </message>
    <message>
        <source>deleted</source>
        <translation>已删除</translation>
    </message>
    <message>
        <source>reverted</source>
        <translation>已撤销</translation>
    </message>
    <message>
        <source>Files changed</source>
        <translation>已更改的文件</translation>
    </message>
    <message>
        <source>Files this chat’s tools changed</source>
        <translation>此聊天的工具更改过的文件</translation>
    </message>
    <message>
        <source>No files changed in this chat yet.</source>
        <translation>此聊天尚未更改任何文件。</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Open</source>
        <translation>打开</translation>
    </message>
    <message>
        <source>Open %1</source>
        <translation>打开 %1</translation>
    </message>
    <message>
        <source>This chat has no project folder to open the file from.</source>
        <translation>此聊天没有项目文件夹，无法从中打开文件。</translation>
    </message>
    <message>
        <source>Revert</source>
        <translation>撤销更改</translation>
    </message>
    <message>
        <source>Revert %1</source>
        <translation>撤销 %1 的更改</translation>
    </message>
    <message>
        <source>Put the file back as it was before its latest change</source>
        <translation>把文件恢复到最近一次更改之前的样子</translation>
    </message>
    <message>
        <source>%1 is not there any more.</source>
        <translation>%1 已不存在。</translation>
    </message>
    <message>
        <source>%1 is back as it was before its latest change.</source>
        <translation>%1 已恢复到最近一次更改之前的样子。</translation>
    </message>
    <message>
        <source>No earlier version of this file was kept.</source>
        <translation>没有保留此文件的早期版本。</translation>
    </message>
    <message>
        <source>Its latest change was reverted already.</source>
        <translation>它最近的更改已经撤销。</translation>
    </message>
    <message>
        <source>Its earlier version was not kept (files over 1 MiB are not), so it can’t be reverted.</source>
        <translation>没有保留它的早期版本（超过 1 MiB 的文件不保留），因此无法撤销。</translation>
    </message>
</context>
<context>
    <name>GeneralPage</name>
    <message>
        <source>System</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>深色</translation>
    </message>
    <message>
        <source>Flat</source>
        <translation>平铺</translation>
    </message>
    <message>
        <source>Commands first</source>
        <translation>命令优先</translation>
    </message>
    <message>
        <source>Fully folded</source>
        <translation>全部折叠</translation>
    </message>
    <message>
        <source>General</source>
        <translation>通用</translation>
    </message>
    <message>
        <source>Show thinking</source>
        <translation>显示思考过程</translation>
    </message>
    <message>
        <source>What the agent may do without asking, in chats that follow this</source>
        <translation>在跟随此设置的聊天中，智能体无需询问即可做的事</translation>
    </message>
    <message>
        <source>Commands may use the network</source>
        <translation>命令可以使用网络</translation>
    </message>
    <message>
        <source>Turn off to run the agent&apos;s commands without network access</source>
        <translation>关闭后，智能体的命令在无网络的环境中运行</translation>
    </message>
    <message>
        <source>Only commands in the sandbox can be kept off the network</source>
        <translation>只有在沙盒中运行的命令才能禁止联网</translation>
    </message>
    <message>
        <source> days</source>
        <translation> 天</translation>
    </message>
    <message>
        <source>How long the record of what the agent&apos;s tools did is kept</source>
        <translation>智能体工具操作记录的保留时长</translation>
    </message>
    <message>
        <source> characters</source>
        <translation> 个字符</translation>
    </message>
    <message>
        <source>The new language is used the next time pidesktop starts.</source>
        <translation>新语言将在下次启动 pidesktop 时生效。</translation>
    </message>
    <message>
        <source>Restart now</source>
        <translation>立即重启</translation>
    </message>
    <message>
        <source>Quit pidesktop and start it again in the new language</source>
        <translation>退出 pidesktop 并以新语言重新启动</translation>
    </message>
    <message>
        <source>Theme</source>
        <translation>主题</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <source>Replies</source>
        <translation>回复</translation>
    </message>
    <message>
        <source>Transcript</source>
        <translation>对话记录</translation>
    </message>
    <message>
        <source>Large paste threshold</source>
        <translation>长文本粘贴阈值</translation>
    </message>
    <message>
        <source>Agent permissions</source>
        <translation>智能体权限</translation>
    </message>
    <message>
        <source>Commands</source>
        <translation>命令</translation>
    </message>
    <message>
        <source>Keep the tool log</source>
        <translation>工具日志保留时长</translation>
    </message>
    <message>
        <source>Network proxy</source>
        <translation>网络代理</translation>
    </message>
</context>
<context>
    <name>GrantsChip</name>
    <message>
        <source>edits</source>
        <translation>文件修改</translation>
    </message>
    <message>
        <source>commands</source>
        <translation>命令</translation>
    </message>
    <message>
        <source>MCP tools</source>
        <translation>MCP 工具</translation>
    </message>
    <message>
        <source>Create and replace files (write)</source>
        <translation>创建和替换文件（write）</translation>
    </message>
    <message>
        <source>Edit files (edit)</source>
        <translation>编辑文件（edit）</translation>
    </message>
    <message>
        <source>Run commands (bash)</source>
        <translation>运行命令（bash）</translation>
    </message>
    <message>
        <source>%1 from the MCP server %2</source>
        <translation>MCP 服务器 %2 的 %1</translation>
    </message>
    <message>
        <source>commands without a sandbox</source>
        <translation>无沙盒运行命令</translation>
    </message>
    <message>
        <source>%1 and %2</source>
        <translation>%1和%2</translation>
    </message>
    <message>
        <source>%1 allowed for this chat</source>
        <translation>本对话已允许%1</translation>
    </message>
    <message>
        <source>You allowed these to run without asking, for the rest of this chat. Click to change.</source>
        <translation>你已允许这些在本对话中无需询问即可运行。点击可更改。</translation>
    </message>
    <message>
        <source>Runs without asking in this chat:</source>
        <translation>在本对话中无需询问即可运行：</translation>
    </message>
    <message>
        <source>Commands, without a sandbox (none is installed)</source>
        <translation>命令，无沙盒运行（未安装沙盒）</translation>
    </message>
    <message>
        <source>Ask me again before each of these</source>
        <translation>以后每次都先问我</translation>
    </message>
</context>
<context>
    <name>GroupDialog</name>
    <message>
        <source>Project group</source>
        <translation>项目组</translation>
    </message>
    <message>
        <source>Edit project group</source>
        <translation>编辑项目组</translation>
    </message>
    <message>
        <source>Group name, e.g. Websites</source>
        <translation>组名，例如“网站”</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Projects in the group (a project is in one group at most)</source>
        <translation>组内项目（一个项目最多属于一个组）</translation>
    </message>
    <message>
        <source>Give the group a name.</source>
        <translation>请为该组起个名称。</translation>
    </message>
    <message>
        <source>Tick at least one project for the group.</source>
        <translation>请为该组至少勾选一个项目。</translation>
    </message>
</context>
<context>
    <name>HeaderBar</name>
    <message>
        <source>The model new chats use. Click to add a provider or change the default (Settings &gt; Providers)</source>
        <translation>新对话使用的模型。点击可添加服务商或更改默认（设置 &gt; 服务商）</translation>
    </message>
    <message>
        <source>Compact now</source>
        <translation>立即压缩</translation>
    </message>
    <message>
        <source>Summarise the earlier messages so the conversation fits the model&apos;s context again</source>
        <translation>汇总较早的消息，让对话重新放得进模型的上下文</translation>
    </message>
    <message>
        <source>This chat’s context: about %1 of the model’s %2 tokens (%3%), sent with every message; when it nears the limit, earlier messages are summarised. Click to compact now.</source>
        <translation>此对话的上下文：约 %1，模型上限 %2 个 token（%3%），每条消息都会发送这些内容；接近上限时，较早的消息会被汇总。点击立即压缩。</translation>
    </message>
    <message>
        <source>This chat’s context: about %1 tokens are sent with every message. Click to compact now.</source>
        <translation>此对话的上下文：每条消息约发送 %1 个 token。点击立即压缩。</translation>
    </message>
</context>
<context>
    <name>HeaderTitle</name>
    <message>
        <source>Click to rename this chat</source>
        <translation>点击重命名此对话</translation>
    </message>
</context>
<context>
    <name>ImportDialog</name>
    <message>
        <source>Import chats</source>
        <translation>导入对话</translation>
    </message>
    <message>
        <source>Brings your conversations from Claude Code, Codex and pi into pidesktop. Their files are only read. Importing again adds only what is new, and never overwrites a chat you changed here.</source>
        <translation>将你在 Claude Code、Codex 和 pi 中的对话导入 pidesktop。只会读取它们的文件。再次导入时只添加新内容，绝不会覆盖你在这里改动过的对话。</translation>
    </message>
    <message>
        <source>Source</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>Found</source>
        <translation>已找到</translation>
    </message>
    <message>
        <source>Looking…</source>
        <translation>正在查找…</translation>
    </message>
    <message>
        <source>pi&apos;s own sessions already show in the sidebar, read-only; importing makes them chats of this app</source>
        <translation>pi 自己的会话已以只读方式显示在侧边栏中；导入后它们会成为本应用的对话</translation>
    </message>
    <message>
        <source>pi sessions are already in the sidebar, read live from pi&apos;s folder, so they are not ticked. Tick pi only if you want a copy of each as a chat of this app: copies are marked “pi copy” in the sidebar, and changing one never changes pi&apos;s file.</source>
        <translation>pi 会话已在侧边栏中，直接从 pi 的文件夹实时读取，所以默认不勾选。只有想把每个会话复制为本应用的对话时才勾选 pi：副本在侧边栏中标为“pi 副本”，修改副本不会改动 pi 的文件。</translation>
    </message>
    <message>
        <source>Details</source>
        <translation>详情</translation>
    </message>
    <message>
        <source>Import</source>
        <translation>导入</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Nothing in %1</source>
        <translation>%1 中没有内容</translation>
    </message>
    <message>
        <source>1 session</source>
        <translation>1 个会话</translation>
    </message>
    <message>
        <source>%1 sessions</source>
        <translation>%1 个会话</translation>
    </message>
    <message>
        <source>%1 new or changed</source>
        <translation>%1 个新增或有改动</translation>
    </message>
    <message>
        <source>all imported already</source>
        <translation>已全部导入</translation>
    </message>
    <message>
        <source>Importing from %1…</source>
        <translation>正在从 %1 导入…</translation>
    </message>
    <message>
        <source>%1: %2 of %3 sessions</source>
        <translation>%1：%2 / %3 个会话</translation>
    </message>
    <message>
        <source>about %1 s left</source>
        <translation>大约还剩 %1 秒</translation>
    </message>
    <message>
        <source>about %1 min left</source>
        <translation>大约还剩 %1 分钟</translation>
    </message>
    <message>
        <source>Could not read %1: %2</source>
        <translation>无法读取 %1：%2</translation>
    </message>
    <message>
        <source>Kept your changed chat; %1 came in as a new chat</source>
        <translation>已保留你改动过的对话；%1 已作为新对话导入</translation>
    </message>
    <message>
        <source>Import stopped. What was already imported stays.</source>
        <translation>导入已停止。已导入的内容会保留。</translation>
    </message>
    <message>
        <source>Imported 1 chat.</source>
        <translation>已导入 1 个对话。</translation>
    </message>
    <message>
        <source>Imported %1 chats.</source>
        <translation>已导入 %1 个对话。</translation>
    </message>
    <message>
        <source>Updated 1 chat with new messages.</source>
        <translation>已为 1 个对话补充新消息。</translation>
    </message>
    <message>
        <source>Updated %1 chats with new messages.</source>
        <translation>已为 %1 个对话补充新消息。</translation>
    </message>
    <message>
        <source>1 chat was already up to date.</source>
        <translation>1 个对话已是最新。</translation>
    </message>
    <message>
        <source>%1 chats were already up to date.</source>
        <translation>%1 个对话已是最新。</translation>
    </message>
    <message>
        <source>%1 chats you changed here were kept as they are; their sources came in as new chats (see Details).</source>
        <translation>你在这里改动过的 %1 个对话保持原样；它们的来源已作为新对话导入（见详情）。</translation>
    </message>
    <message>
        <source>1 file could not be read (see Details).</source>
        <translation>有 1 个文件无法读取（见详情）。</translation>
    </message>
    <message>
        <source>%1 files could not be read (see Details).</source>
        <translation>有 %1 个文件无法读取（见详情）。</translation>
    </message>
    <message>
        <source>Nothing was imported.</source>
        <translation>没有导入任何内容。</translation>
    </message>
    <message>
        <source>Hide details</source>
        <translation>隐藏详情</translation>
    </message>
</context>
<context>
    <name>Inbox</name>
    <message>
        <source>Untitled task</source>
        <translation>未命名任务</translation>
    </message>
    <message>
        <source>Nothing here yet — finished tasks you didn&apos;t watch show up here.</source>
        <translation>这里还没有内容——你没在看时完成的任务会显示在这里。</translation>
    </message>
    <message>
        <source>The reply failed.</source>
        <translation>回复失败。</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>Completed</source>
        <translation>已完成</translation>
    </message>
</context>
<context>
    <name>InboxModel</name>
    <message>
        <source>Unread. </source>
        <translation>未读。</translation>
    </message>
</context>
<context>
    <name>InboxPanel</name>
    <message>
        <source>Inbox</source>
        <translation>收件箱</translation>
    </message>
    <message>
        <source>Mark all read</source>
        <translation>全部标为已读</translation>
    </message>
    <message>
        <source>Mark every notification as read</source>
        <translation>将所有通知标为已读</translation>
    </message>
    <message>
        <source>Clear</source>
        <translation>清空</translation>
    </message>
    <message>
        <source>Remove every notification</source>
        <translation>移除所有通知</translation>
    </message>
    <message>
        <source>Close (Esc)</source>
        <translation>关闭（Esc）</translation>
    </message>
    <message>
        <source>Clear inbox</source>
        <translation>清空收件箱</translation>
    </message>
    <message>
        <source>Clear every notification?</source>
        <translation>要清空所有通知吗？</translation>
    </message>
    <message>
        <source>Your chats stay as they are; only this list is emptied.</source>
        <translation>你的对话不受影响，只会清空这个列表。</translation>
    </message>
</context>
<context>
    <name>IndexProgressWindow</name>
    <message>
        <source>Restoring your chats from their files…</source>
        <translation>正在从文件恢复你的对话…</translation>
    </message>
    <message>
        <source>Indexing a long chat again from its file…</source>
        <translation>正在从文件重新索引一个很长的对话…</translation>
    </message>
    <message>
        <source>pidesktop</source>
        <translation>pidesktop</translation>
    </message>
    <message>
        <source>Rebuilding the chat index</source>
        <translation>正在重建对话索引</translation>
    </message>
    <message>
        <source>Starting…</source>
        <translation>正在开始…</translation>
    </message>
    <message>
        <source>Your chats are safe in their files; the index that lists and searches them is being rebuilt.</source>
        <translation>你的对话完好地保存在文件中；用于列出和搜索它们的索引正在重建。</translation>
    </message>
    <message>
        <source>%1 of %2 chats</source>
        <translation>第 %1 个，共 %2 个对话</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>Code copied to the clipboard</source>
        <translation>代码已复制到剪贴板</translation>
    </message>
    <message>
        <source>New project…</source>
        <translation>新建项目…</translation>
    </message>
    <message>
        <source>Add a folder as a project; its chats get its memory</source>
        <translation>将文件夹添加为项目；项目中的对话会带上它的记忆</translation>
    </message>
    <message>
        <source>New chat</source>
        <translation>新对话</translation>
    </message>
    <message>
        <source>Toggle sidebar</source>
        <translation>显示/隐藏侧边栏</translation>
    </message>
    <message>
        <source>Quit</source>
        <translation>退出</translation>
    </message>
    <message>
        <source>Search chats</source>
        <translation>搜索对话</translation>
    </message>
    <message>
        <source>Inbox</source>
        <translation>收件箱</translation>
    </message>
    <message>
        <source>Automations…</source>
        <translation>自动化任务…</translation>
    </message>
    <message>
        <source>Settings…</source>
        <translation>设置…</translation>
    </message>
    <message>
        <source>Close the inbox, stop editing, deny the tool call waiting, or stop the reply</source>
        <translation>关闭收件箱、结束编辑、拒绝等待中的工具调用，或停止回复</translation>
    </message>
    <message>
        <source>New chat (Ctrl+N)</source>
        <translation>新对话（Ctrl+N）</translation>
    </message>
</context>
<context>
    <name>Maintenance</name>
    <message>
        <source>Choose…</source>
        <translation>选择…</translation>
    </message>
    <message>
        <source>The file system refused: %1%2. Check the folder&apos;s permissions and free space, then try again.</source>
        <translation>文件系统拒绝了操作：%1%2。请检查文件夹权限和剩余空间，然后重试。</translation>
    </message>
    <message>
        <source>Something unexpected went wrong (%1). Nothing was changed; the details are in the log.</source>
        <translation>发生了意外错误（%1）。没有任何更改；详情见日志。</translation>
    </message>
</context>
<context>
    <name>McpChip</name>
    <message>
        <source>MCP: off</source>
        <translation>MCP：关闭</translation>
    </message>
    <message>
        <source>MCP: %1</source>
        <translation>MCP：%1</translation>
    </message>
    <message>
        <source>The tools of these MCP servers are on for this chat</source>
        <translation>此对话启用了这些 MCP 服务器的工具</translation>
    </message>
    <message>
        <source>No MCP server&apos;s tools are on for this chat</source>
        <translation>此对话未启用任何 MCP 服务器的工具</translation>
    </message>
    <message>
        <source>Checked servers are on for every chat of this project</source>
        <translation>勾选的服务器对此项目的所有对话启用</translation>
    </message>
    <message>
        <source>Chats without a project use every enabled server (Settings &gt; Tools)</source>
        <translation>不属于项目的对话使用所有已启用的服务器（设置 &gt; 工具）</translation>
    </message>
</context>
<context>
    <name>McpServerDialog</name>
    <message>
        <source>Edit MCP server</source>
        <translation>编辑 MCP 服务器</translation>
    </message>
    <message>
        <source>Add MCP server</source>
        <translation>添加 MCP 服务器</translation>
    </message>
    <message>
        <source>e.g. files or github</source>
        <translation>例如 files 或 github</translation>
    </message>
    <message>
        <source>Start a command (stdio)</source>
        <translation>启动命令（stdio）</translation>
    </message>
    <message>
        <source>Connect to a URL (streamable HTTP)</source>
        <translation>连接 URL（可流式 HTTP）</translation>
    </message>
    <message>
        <source> s</source>
        <translation> 秒</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Command</source>
        <translation>命令</translation>
    </message>
    <message>
        <source>URL</source>
        <translation>URL</translation>
    </message>
    <message>
        <source>Timeout</source>
        <translation>超时</translation>
    </message>
    <message>
        <source>this MCP server</source>
        <translation>这个 MCP 服务器</translation>
    </message>
    <message>
        <source>your changes to this MCP server</source>
        <translation>对这个 MCP 服务器的更改</translation>
    </message>
    <message>
        <source>Environment</source>
        <translation>环境变量</translation>
    </message>
    <message>
        <source>Headers</source>
        <translation>请求头</translation>
    </message>
    <message>
        <source>One NAME=value a line. Values are kept encrypted.</source>
        <translation>每行一个 NAME=value。值会加密保存。</translation>
    </message>
    <message>
        <source>Leave a value empty to keep the stored one.</source>
        <translation>值留空则保留已保存的值。</translation>
    </message>
    <message>
        <source>Line %1 needs the form NAME=value.</source>
        <translation>第 %1 行需要写成 NAME=value。</translation>
    </message>
    <message>
        <source>The command line could not be read: %1</source>
        <translation>无法读取命令行：%1</translation>
    </message>
    <message>
        <source>Type the command that starts the server.</source>
        <translation>请输入启动服务器的命令。</translation>
    </message>
</context>
<context>
    <name>MessageLayout</name>
    <message>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>Edit</source>
        <translation>编辑</translation>
    </message>
    <message>
        <source>Fork</source>
        <translation>分叉</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Show full message</source>
        <translation>显示完整消息</translation>
    </message>
    <message>
        <source>Regenerate</source>
        <translation>重新生成</translation>
    </message>
    <message>
        <source>Subagent %1</source>
        <translation>子智能体 %1</translation>
    </message>
    <message>
        <source>Earlier messages summarised</source>
        <translation>较早的消息已汇总为摘要</translation>
    </message>
    <message>
        <source>%1 tokens before</source>
        <translation>此前 %1 个 token</translation>
    </message>
    <message>
        <source>This model did not accept pictures, so they were sent by name only.</source>
        <translation>此模型不接受图片，因此只发送了图片的名称。</translation>
    </message>
    <message>
        <source>attachment</source>
        <translation>附件</translation>
    </message>
    <message>
        <source>Reverted</source>
        <translation>已撤销</translation>
    </message>
    <message>
        <source>Revert</source>
        <translation>撤销更改</translation>
    </message>
    <message>
        <source>denied</source>
        <translation>已拒绝</translation>
    </message>
    <message>
        <source>Done</source>
        <translation>完成</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>Denied</source>
        <translation>已拒绝</translation>
    </message>
    <message>
        <source>Not run</source>
        <translation>未运行</translation>
    </message>
    <message>
        <source>Running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>%1 of %2 done</source>
        <translation>已完成 %1 / %2</translation>
    </message>
    <message>
        <source>Thinking…</source>
        <translation>正在思考…</translation>
    </message>
    <message>
        <source>Stopped — the reply above is partial.</source>
        <translation>已停止——上面的回复不完整。</translation>
    </message>
    <message>
        <source>(empty reply)</source>
        <translation>（空回复）</translation>
    </message>
    <message>
        <source>%1 steps</source>
        <translation>%1 个步骤</translation>
    </message>
    <message>
        <source>Interrupted — pidesktop quit or crashed while this reply was being written.</source>
        <translation>已中断——写入这条回复时 pidesktop 退出或崩溃了。</translation>
    </message>
    <message>
        <source>Thought</source>
        <translation>已思考</translation>
    </message>
    <message>
        <source>Thought for a moment</source>
        <translation>思考了片刻</translation>
    </message>
    <message>
        <source>Thought for %1 s</source>
        <translation>思考了 %1 秒</translation>
    </message>
    <message>
        <source>result</source>
        <translation>结果</translation>
    </message>
</context>
<context>
    <name>MigrationWindow</name>
    <message>
        <source>Getting the database ready…</source>
        <translation>正在准备数据库…</translation>
    </message>
    <message>
        <source>Keeping a copy of your database…</source>
        <translation>正在保留数据库副本…</translation>
    </message>
    <message>
        <source>Updating the database…</source>
        <translation>正在更新数据库…</translation>
    </message>
    <message>
        <source>Checking the updated database…</source>
        <translation>正在检查更新后的数据库…</translation>
    </message>
    <message>
        <source>Setting the old database aside…</source>
        <translation>正在将旧数据库移到一旁…</translation>
    </message>
    <message>
        <source>Done.</source>
        <translation>完成。</translation>
    </message>
    <message>
        <source>Your database was from version %1, too old to update: it was set aside as %2 and a new one was started.</source>
        <translation>你的数据库来自版本 %1，太旧无法更新：它已被保存为 %2，并新建了一个数据库。</translation>
    </message>
    <message>
        <source>Your data was updated from version %1 to %2. The old database is kept at %3.</source>
        <translation>你的数据已从版本 %1 更新到 %2。旧数据库保存在 %3。</translation>
    </message>
    <message>
        <source>Your data was updated from version %1 to %2.</source>
        <translation>你的数据已从版本 %1 更新到 %2。</translation>
    </message>
    <message>
        <source>pidesktop has been updated</source>
        <translation>pidesktop 已更新</translation>
    </message>
    <message>
        <source>Your database is from version %1, too old to update: it is set aside and a new one is started.</source>
        <translation>你的数据库来自版本 %1，太旧无法更新：它会被移到一旁，并新建一个数据库。</translation>
    </message>
    <message>
        <source>Updating your data from version %1 to version %2…</source>
        <translation>正在将你的数据从版本 %1 更新到版本 %2…</translation>
    </message>
    <message>
        <source>Starting…</source>
        <translation>正在开始…</translation>
    </message>
    <message>
        <source>pidesktop keeps a copy of the database before it changes anything, and your chats open when the update has been checked. This happens once.</source>
        <translation>pidesktop 在做任何更改前会保留一份数据库副本，更新检查完成后你的对话就会打开。此过程只进行一次。</translation>
    </message>
    <message>
        <source>Quit</source>
        <translation>退出</translation>
    </message>
    <message>
        <source>Choose another folder…</source>
        <translation>选择其他文件夹…</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <source>Step %1 of %2</source>
        <translation>第 %1 步，共 %2 步</translation>
    </message>
    <message>
        <source>Your data could not be updated</source>
        <translation>无法更新你的数据</translation>
    </message>
    <message>
        <source>The update from version %1 stopped. Nothing was changed: the database is still at version %1.</source>
        <translation>从版本 %1 的更新已停止。没有任何更改：数据库仍是版本 %1。</translation>
    </message>
    <message>
        <source>A copy of the database as it was is kept at %1. Quit and keep the folder as it is, or open another data folder.</source>
        <translation>数据库原样的副本保存在 %1。你可以退出并保持文件夹不变，或打开另一个数据文件夹。</translation>
    </message>
    <message>
        <source>Quit and keep the folder as it is, or open another data folder.</source>
        <translation>退出并保持文件夹不变，或打开另一个数据文件夹。</translation>
    </message>
    <message>
        <source>This data is from a newer pidesktop</source>
        <translation>这些数据来自更新版本的 pidesktop</translation>
    </message>
    <message>
        <source>The database is version %1; this pidesktop opens versions up to %2.</source>
        <translation>数据库版本为 %1；此 pidesktop 最高只能打开版本 %2。</translation>
    </message>
    <message>
        <source>Nothing was changed. Update pidesktop to open this folder, or choose another data folder.</source>
        <translation>没有任何更改。请更新 pidesktop 以打开此文件夹，或选择另一个数据文件夹。</translation>
    </message>
</context>
<context>
    <name>MissingRootWindow</name>
    <message>
        <source>Your data folder is missing</source>
        <translation>找不到你的数据文件夹</translation>
    </message>
    <message>
        <source>pidesktop kept its data in %1, but that folder is gone. If it is on a disk that is not connected, quit, connect it and start pidesktop again.</source>
        <translation>pidesktop 的数据原本在 %1，但该文件夹已不存在。如果它在未连接的磁盘上，请退出、连接磁盘后重新启动 pidesktop。</translation>
    </message>
    <message>
        <source>Create a fresh data folder</source>
        <translation>新建数据文件夹</translation>
    </message>
    <message>
        <source>Select an existing one…</source>
        <translation>选择已有文件夹…</translation>
    </message>
    <message>
        <source>Restore from S3…</source>
        <translation>从 S3 恢复…</translation>
    </message>
    <message>
        <source>Quit</source>
        <translation>退出</translation>
    </message>
    <message>
        <source>Rebuild %1 from the newest backup made with Back up to S3 or “pidesktop data backup s3”. Its passphrase is the Settings &gt; Sync one, unless another was typed:</source>
        <translation>用“备份到 S3”或“pidesktop data backup s3”做的最新备份重建 %1。它的密码短语是“设置 &gt; 同步”的密码短语，除非备份时输入了别的：</translation>
    </message>
    <message>
        <source>Restore</source>
        <translation>恢复</translation>
    </message>
    <message>
        <source>Select your data folder</source>
        <translation>选择你的数据文件夹</translation>
    </message>
</context>
<context>
    <name>ModelSettingsForm</name>
    <message>
        <source>How many tokens the model reads at once; the chat header&apos;s meter measures against it.</source>
        <translation>模型一次能读取的 token 数；聊天标题栏的用量表以此为准。</translation>
    </message>
    <message>
        <source>Server’s limit</source>
        <translation>服务器的上限</translation>
    </message>
    <message>
        <source>Server’s default</source>
        <translation>服务器的默认值</translation>
    </message>
    <message>
        <source>Lower answers more predictably, higher more varied (0 to 2).</source>
        <translation>越低回答越稳定，越高越多样（0 到 2）。</translation>
    </message>
    <message>
        <source>Instructions the model reads before every chat (optional)</source>
        <translation>模型在每次聊天前读取的说明（可选）</translation>
    </message>
    <message>
        <source>Context window</source>
        <translation>上下文窗口</translation>
    </message>
    <message>
        <source>Output limit</source>
        <translation>输出上限</translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation>温度</translation>
    </message>
    <message>
        <source>System prompt</source>
        <translation>系统提示词</translation>
    </message>
    <message>
        <source>Automatic (%1)</source>
        <translation>自动（%1）</translation>
    </message>
    <message>
        <source>Settings for %1, stored with Save:</source>
        <translation>%1 的设置，点击保存后生效：</translation>
    </message>
    <message>
        <source>Choose a model to set its context window, output, temperature and system prompt.</source>
        <translation>选择一个模型以设置其上下文窗口、输出、温度和系统提示词。</translation>
    </message>
</context>
<context>
    <name>MoveProgressWindow</name>
    <message>
        <source>Looking at your data…</source>
        <translation>正在查看你的数据…</translation>
    </message>
    <message>
        <source>Copying files…</source>
        <translation>正在复制文件…</translation>
    </message>
    <message>
        <source>Checking the copy…</source>
        <translation>正在检查副本…</translation>
    </message>
    <message>
        <source>Updating paths in the copy…</source>
        <translation>正在更新副本中的路径…</translation>
    </message>
    <message>
        <source>Checking the copied database…</source>
        <translation>正在检查复制的数据库…</translation>
    </message>
    <message>
        <source>Switching to the new folder…</source>
        <translation>正在切换到新文件夹…</translation>
    </message>
    <message>
        <source>Done.</source>
        <translation>完成。</translation>
    </message>
    <message>
        <source>Less than a minute left</source>
        <translation>剩余不到一分钟</translation>
    </message>
    <message>
        <source>About %1 min left</source>
        <translation>大约还剩 %1 分钟</translation>
    </message>
    <message>
        <source>About %1 h left</source>
        <translation>大约还剩 %1 小时</translation>
    </message>
    <message>
        <source>Moving your data folder</source>
        <translation>正在移动你的数据文件夹</translation>
    </message>
    <message>
        <source>From %1
to %2</source>
        <translation>从 %1
到 %2</translation>
    </message>
    <message>
        <source>Starting…</source>
        <translation>正在开始…</translation>
    </message>
    <message>
        <source>Your chats open as soon as the copy has been checked. Until then, your data stays where it was.</source>
        <translation>副本检查完成后就会打开你的对话。在此之前，你的数据仍留在原处。</translation>
    </message>
    <message>
        <source>Cancel move</source>
        <translation>取消移动</translation>
    </message>
    <message>
        <source>Retry</source>
        <translation>重试</translation>
    </message>
    <message>
        <source>Keep current folder</source>
        <translation>保留当前文件夹</translation>
    </message>
    <message>
        <source>Forget this move and open your data where it is now.</source>
        <translation>放弃这次移动，在当前位置打开你的数据。</translation>
    </message>
    <message>
        <source>Quit</source>
        <translation>退出</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <source>%1 of %2 files</source>
        <translation>%1 / %2 个文件</translation>
    </message>
    <message>
        <source>Cancelling…</source>
        <translation>正在取消…</translation>
    </message>
    <message>
        <source>The move did not finish</source>
        <translation>移动没有完成</translation>
    </message>
    <message>
        <source>Your data is still in the current folder. Fix the problem and retry, or keep using the current folder.</source>
        <translation>你的数据仍在当前文件夹中。请解决问题后重试，或继续使用当前文件夹。</translation>
    </message>
</context>
<context>
    <name>NativeChat</name>
    <message>
        <source>Continue this pi session in pidesktop…  (Enter to send)</source>
        <translation>在 pidesktop 中继续此 pi 会话…（Enter 发送）</translation>
    </message>
    <message>
        <source>Copy this branch into a new pi session beside it</source>
        <translation>将此分支复制为一个新的 pi 会话，与原会话并列</translation>
    </message>
    <message>
        <source>Not sent: files can’t be added to a pi session. Remove them, then send the text.</source>
        <translation>未发送：无法向 pi 会话添加文件。请先移除文件，再发送文字。</translation>
    </message>
    <message>
        <source>Not sent: you are reading another branch. Switch to the current branch to continue it, or fork this one.</source>
        <translation>未发送：你正在查看另一个分支。请切换到当前分支以继续，或分叉此分支。</translation>
    </message>
    <message>
        <source>Not sent: wait for the answer being written to finish.</source>
        <translation>未发送：请等待正在生成的回答完成。</translation>
    </message>
    <message>
        <source>Not added to the pi session: %1</source>
        <translation>未添加到 pi 会话：%1</translation>
    </message>
    <message>
        <source>Not sent: the pi session&apos;s folder is not trusted.</source>
        <translation>未发送：尚未信任此 pi 会话的文件夹。</translation>
    </message>
</context>
<context>
    <name>NativeParts</name>
    <message>
        <source>Context given to the model</source>
        <translation>提供给模型的上下文</translation>
    </message>
    <message>
        <source>Summary of another branch</source>
        <translation>另一分支的摘要</translation>
    </message>
</context>
<context>
    <name>NativeRows</name>
    <message>
        <source>%1 · pi</source>
        <translation>%1 · pi</translation>
    </message>
    <message>
        <source>pi sessions</source>
        <translation>pi 会话</translation>
    </message>
    <message>
        <source>pi copy</source>
        <translation>pi 副本</translation>
    </message>
    <message>
        <source>%1
A copy imported from pi: the pi session itself is the row tagged “pi”.</source>
        <translation>%1
从 pi 导入的副本：pi 会话本身是标有“pi”的那一行。</translation>
    </message>
</context>
<context>
    <name>NativeTrust</name>
    <message>
        <source>Trust this folder?</source>
        <translation>信任此文件夹？</translation>
    </message>
    <message>
        <source>This pi session works in %1. Continue it there?</source>
        <translation>此 pi 会话的工作文件夹是 %1。要在那里继续吗？</translation>
    </message>
    <message>
        <source>pidesktop continues a pi session only in a folder you trust. Your answer is kept for every pi session in this folder.</source>
        <translation>pidesktop 只在你信任的文件夹中继续 pi 会话。你的选择会应用于此文件夹中的所有 pi 会话。</translation>
    </message>
    <message>
        <source>Trust and continue</source>
        <translation>信任并继续</translation>
    </message>
</context>
<context>
    <name>NoteField</name>
    <message>
        <source>Nothing written yet.</source>
        <translation>还没有写任何内容。</translation>
    </message>
    <message>
        <source>%1 of %2 bytes</source>
        <translation>%1 / %2 字节</translation>
    </message>
</context>
<context>
    <name>NotesEditor</name>
    <message>
        <source>your changes to “%1”</source>
        <translation>对“%1”的更改</translation>
    </message>
    <message>
        <source>“%1” is %2 bytes, more than the %3 bytes (32 KiB) it can hold, so it can’t be saved. Shorten it; the counter turns grey when it fits.</source>
        <translation>“%1”有 %2 字节，超过了可容纳的 %3 字节（32 KiB），因此无法保存。请缩短内容；长度合适时计数器会变为灰色。</translation>
    </message>
</context>
<context>
    <name>NoticeLine</name>
    <message>
        <source>Details…</source>
        <translation>详情…</translation>
    </message>
    <message>
        <source>Show what went wrong, in full</source>
        <translation>查看完整的错误信息</translation>
    </message>
    <message>
        <source>Dismiss</source>
        <translation>关闭</translation>
    </message>
</context>
<context>
    <name>Notices</name>
    <message>
        <source>Your data can’t be opened.</source>
        <translation>无法打开你的数据。</translation>
    </message>
    <message>
        <source>The daily backup to S3 failed.</source>
        <translation>每日 S3 备份失败。</translation>
    </message>
    <message>
        <source>New chat</source>
        <translation>新对话</translation>
    </message>
    <message>
        <source>The reply in “%1” was cut off when pidesktop last quit or crashed. It is kept as far as it got.</source>
        <translation>“%1”中的回复在 pidesktop 上次退出或崩溃时被中断。已保留中断前的内容。</translation>
    </message>
    <message numerus="yes">
        <source>%n replies were cut off when pidesktop last quit or crashed. They are kept as far as they got.</source>
        <translation>
            <numerusform>%n 条回复在 pidesktop 上次退出或崩溃时被中断。已保留中断前的内容。</numerusform>
        </translation>
    </message>
    <message>
        <source>A chat was rebuilt from its file, with its title, project and settings.</source>
        <translation>已从聊天文件重建 1 个聊天，包括标题、项目和设置。</translation>
    </message>
    <message numerus="yes">
        <source>%n chats were rebuilt from their files, with their titles, projects and settings.</source>
        <translation>
            <numerusform>已从聊天文件重建 %n 个聊天，包括标题、项目和设置。</numerusform>
        </translation>
    </message>
    <message>
        <source>Your database was damaged and has been rebuilt; the damaged copy is kept as %1.</source>
        <translation>数据库已损坏并已重建；损坏的副本保存为 %1。</translation>
    </message>
    <message>
        <source>app settings</source>
        <translation>应用设置</translation>
    </message>
    <message>
        <source>providers</source>
        <translation>服务商</translation>
    </message>
    <message>
        <source>models</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>projects</source>
        <translation>项目</translation>
    </message>
    <message>
        <source>project memory</source>
        <translation>项目记忆</translation>
    </message>
    <message>
        <source>automations</source>
        <translation>自动化任务</translation>
    </message>
    <message>
        <source>These could not be recovered: %1. Set them again if you had changed them.</source>
        <translation>以下内容无法恢复：%1。如果你曾修改过，请重新设置。</translation>
    </message>
</context>
<context>
    <name>OldCopiesDialog</name>
    <message>
        <source>Remove old copies</source>
        <translation>删除旧副本</translation>
    </message>
    <message>
        <source>After a move, pidesktop keeps the old data folder as a backup. Delete it once you are sure the new one has everything.</source>
        <translation>移动之后，pidesktop 会保留旧的数据文件夹作为备份。确认新文件夹内容齐全后再删除它。</translation>
    </message>
    <message>
        <source>Old folder</source>
        <translation>旧文件夹</translation>
    </message>
    <message>
        <source>Moved</source>
        <translation>移动时间</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <source>There are no old copies.</source>
        <translation>没有旧副本。</translation>
    </message>
    <message>
        <source>Delete…</source>
        <translation>删除…</translation>
    </message>
    <message>
        <source>(already gone)</source>
        <translation>（已不存在）</translation>
    </message>
    <message>
        <source>Moved to %1</source>
        <translation>已移动到 %1</translation>
    </message>
    <message>
        <source>Delete these folders (%1) for good?

%2

This cannot be undone.</source>
        <translation>要永久删除这些文件夹（%1）吗？

%2

此操作无法撤销。</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Are you sure? Your current data folder is not affected, but the old copy cannot be recovered.</source>
        <translation>确定吗？当前数据文件夹不受影响，但旧副本将无法恢复。</translation>
    </message>
    <message>
        <source>Delete for good</source>
        <translation>永久删除</translation>
    </message>
    <message>
        <source>Deleted 1 folder.</source>
        <translation>已删除 1 个文件夹。</translation>
    </message>
    <message>
        <source>Deleted %1 folders.</source>
        <translation>已删除 %1 个文件夹。</translation>
    </message>
    <message>
        <source>Retry…</source>
        <translation>重试…</translation>
    </message>
    <message>
        <source>Some folders could not be deleted; the copy stays listed so you can retry:</source>
        <translation>有些文件夹无法删除；该副本仍保留在列表中，你可以重试：</translation>
    </message>
</context>
<context>
    <name>PendingApprovals</name>
    <message>
        <source>Plan waiting for approval</source>
        <translation>计划等待批准</translation>
    </message>
    <message>
        <source>Goal waiting for approval</source>
        <translation>目标等待批准</translation>
    </message>
    <message>
        <source>Untitled chat</source>
        <translation>未命名对话</translation>
    </message>
</context>
<context>
    <name>PermissionCard</name>
    <message>
        <source>Why not? (optional, sent to the model with Deny)</source>
        <translation>为什么不？（可选，随“拒绝”发送给模型）</translation>
    </message>
    <message>
        <source>Deny</source>
        <translation>拒绝</translation>
    </message>
    <message>
        <source>Don&apos;t do it; the model reads your reason, if you wrote one (Esc)</source>
        <translation>不执行；如果你写了理由，模型会读到 (Esc)</translation>
    </message>
    <message>
        <source>Allow for this chat</source>
        <translation>在此对话中允许</translation>
    </message>
    <message>
        <source>Allow once</source>
        <translation>允许一次</translation>
    </message>
    <message>
        <source>Do it this time and ask again next time (Enter, here in the card)</source>
        <translation>这次执行，下次再问（在此卡片中按 Enter）</translation>
    </message>
    <message>
        <source>Run this command?</source>
        <translation>运行此命令？</translation>
    </message>
    <message>
        <source>Allow this change? %1</source>
        <translation>允许此更改？%1</translation>
    </message>
    <message>
        <source>Allow this? %1</source>
        <translation>允许此操作？%1</translation>
    </message>
    <message>
        <source>This is outside the project folder (%1). Allow it only if you expect it.</source>
        <translation>这在项目文件夹（%1）之外。仅在你预期如此时才允许。</translation>
    </message>
    <message>
        <source>Commands run with your full rights: no sandbox is installed (install bubblewrap to confine them).</source>
        <translation>命令以你的全部权限运行：未安装沙箱（安装 bubblewrap 以限制命令）。</translation>
    </message>
    <message>
        <source>The MCP server %1 runs it with the arguments below; the app cannot undo what it does.</source>
        <translation>MCP 服务器 %1 会用下面的参数运行它；应用无法撤销它所做的操作。</translation>
    </message>
    <message>
        <source>It runs in %1.</source>
        <translation>它在 %1 中运行。</translation>
    </message>
    <message>
        <source>Nothing changes until you allow it. You can revert the change later.</source>
        <translation>在你允许之前不会有任何更改。之后可以撤销此更改。</translation>
    </message>
    <message>
        <source>Run commands in this chat without asking again (the chip below the message box takes it back)</source>
        <translation>在此对话中运行命令不再询问（可在消息框下方的标签中撤回）</translation>
    </message>
    <message>
        <source>Allow %1 in this chat without asking again (the chip below the message box takes it back)</source>
        <translation>在此对话中允许 %1 不再询问（可在消息框下方的标签中撤回）</translation>
    </message>
</context>
<context>
    <name>PermissionModes</name>
    <message>
        <source>Ask before changes</source>
        <translation>更改前询问</translation>
    </message>
    <message>
        <source>The agent asks you before it changes a file or runs a command</source>
        <translation>智能体在更改文件或运行命令前先询问你</translation>
    </message>
    <message>
        <source>Allow file edits</source>
        <translation>允许编辑文件</translation>
    </message>
    <message>
        <source>The agent changes files in the project without asking; it asks before commands</source>
        <translation>智能体无需询问即可更改项目中的文件；运行命令前会询问</translation>
    </message>
    <message>
        <source>Allow everything</source>
        <translation>全部允许</translation>
    </message>
    <message>
        <source>The agent changes files and runs commands without asking</source>
        <translation>智能体无需询问即可更改文件和运行命令</translation>
    </message>
    <message>
        <source>Ask first</source>
        <translation>先询问</translation>
    </message>
    <message>
        <source>Allow edits</source>
        <translation>允许编辑</translation>
    </message>
    <message>
        <source>Allow all</source>
        <translation>全部允许</translation>
    </message>
    <message>
        <source>Default: %1</source>
        <translation>默认：%1</translation>
    </message>
</context>
<context>
    <name>PlainErrors</name>
    <message>
        <source>That chat or message is no longer there; it may have been deleted elsewhere.</source>
        <translation>该对话或消息已不存在，可能已在别处被删除。</translation>
    </message>
    <message>
        <source>That was not accepted, and nothing was changed. Details says which value.</source>
        <translation>未被接受，没有任何更改。详情中说明了是哪个值。</translation>
    </message>
    <message>
        <source>That was not accepted, and nothing was changed. Details says why.</source>
        <translation>未被接受，没有任何更改。原因见详情。</translation>
    </message>
    <message>
        <source>Something else changed this at the same moment. Nothing was lost; try again.</source>
        <translation>同一时刻有其他操作更改了它。没有丢失任何内容，请重试。</translation>
    </message>
    <message>
        <source>That is more than the app takes at once. Nothing was changed; Details names the limit.</source>
        <translation>超出了应用一次能处理的量。没有任何更改；详情中写明了限制。</translation>
    </message>
    <message>
        <source>Too many replies were waiting to be saved, so this one is kept aside. It appears when pidesktop starts again.</source>
        <translation>等待保存的回复太多，这条回复已被暂存，会在 pidesktop 再次启动时出现。</translation>
    </message>
    <message>
        <source>A reply is still running in this chat. Wait for it to finish, or stop it, then try again.</source>
        <translation>这个对话中仍有回复正在进行。请等它结束或将其停止，然后再试。</translation>
    </message>
    <message>
        <source>Your data folder is on a read-only disk, so pidesktop can’t save anything. Make it writable, or start pidesktop with --data-dir set to another folder.</source>
        <translation>数据文件夹位于只读磁盘上，pidesktop 无法保存任何内容。请让它可写，或用 --data-dir 指定另一个文件夹启动 pidesktop。</translation>
    </message>
    <message>
        <source>pidesktop may not write to your data folder. Give your user write access to it, or start pidesktop with --data-dir set to another folder.</source>
        <translation>pidesktop 无权写入数据文件夹。请给当前用户写入权限，或用 --data-dir 指定另一个文件夹启动 pidesktop。</translation>
    </message>
    <message>
        <source>The disk of your data folder is full, so pidesktop can’t start. Free some space, then start it again.</source>
        <translation>数据文件夹所在的磁盘已满，pidesktop 无法启动。请释放一些空间后再启动。</translation>
    </message>
    <message>
        <source>No answer was given, so the proposal was not carried out. Open the chat and choose Ask again.</source>
        <translation>没有给出答复，因此该提议未被执行。请打开对话并选择“再问一次”。</translation>
    </message>
    <message>
        <source>pidesktop quit while it ran.</source>
        <translation>运行期间 pidesktop 退出了。</translation>
    </message>
    <message>
        <source>A newer proposal took the place of this one.</source>
        <translation>一个更新的提议取代了这一个。</translation>
    </message>
    <message>
        <source>Nobody answered this proposal within a day, so it can no longer be approved.</source>
        <translation>一天内没有人答复这个提议，因此它已无法再被批准。</translation>
    </message>
    <message>
        <source>Your data folder refused the change. Check its permissions; Details names the file.</source>
        <translation>数据文件夹拒绝了这次更改。请检查它的权限；详情中写明了文件。</translation>
    </message>
    <message>
        <source>Your data folder can’t be reached right now. Check that its disk is attached, then try again.</source>
        <translation>目前无法访问数据文件夹。请确认所在磁盘已连接，然后重试。</translation>
    </message>
    <message>
        <source>That isn’t allowed here, so nothing was changed. Details says why.</source>
        <translation>这里不允许这样做，因此没有任何更改。详情中写明了原因。</translation>
    </message>
    <message>
        <source>Plan and Goal need you to approve. Switch the task to Agent.</source>
        <translation>计划和目标模式需要你批准。请将任务切换为智能体模式。</translation>
    </message>
    <message>
        <source>Your disk is full: free some space; nothing you wrote is lost.</source>
        <translation>磁盘已满：请释放一些空间；你写下的内容没有丢失。</translation>
    </message>
    <message>
        <source>Your data was written by a different version of pidesktop, which this one can’t open.</source>
        <translation>你的数据由另一个版本的 pidesktop 写入，当前版本无法打开。</translation>
    </message>
    <message>
        <source>This chat can’t be shown: a newer version stored its tool pictures. Update pidesktop to open it; nothing was changed.</source>
        <translation>无法显示此对话：它的工具图片由更新的版本保存。请更新 pidesktop 后再打开；没有任何内容被更改。</translation>
    </message>
    <message>
        <source>This chat can’t be shown: its tool pictures are stored in a damaged form. Restore it from a backup; nothing was changed.</source>
        <translation>无法显示此对话：它的工具图片以损坏的形式保存。请从备份中恢复；没有任何内容被更改。</translation>
    </message>
    <message>
        <source>This part of the app is not available in this version.</source>
        <translation>此版本中没有这项功能。</translation>
    </message>
    <message>
        <source>Something unexpected went wrong. Nothing was changed; Details has the report.</source>
        <translation>发生了意外错误。没有任何更改；详情中有报告。</translation>
    </message>
    <message>
        <source>The provider rejected the API key. Check it in Settings &gt; Providers.</source>
        <translation>服务商拒绝了 API 密钥。请在“设置 &gt; 服务商”中检查。</translation>
    </message>
    <message>
        <source>The provider does not know this model. Pick another one in the composer or in Settings &gt; Providers.</source>
        <translation>服务商不认识这个模型。请在输入框或“设置 &gt; 服务商”中选择其他模型。</translation>
    </message>
    <message>
        <source>The provider is limiting requests. Try again in a moment.</source>
        <translation>服务商正在限制请求。请稍后重试。</translation>
    </message>
    <message>
        <source>The provider is having trouble right now. Try again in a moment.</source>
        <translation>服务商目前出现问题。请稍后重试。</translation>
    </message>
    <message>
        <source>The provider refused the request. Details has its reason.</source>
        <translation>服务商拒绝了请求。原因见详情。</translation>
    </message>
    <message>
        <source>Could not reach the provider. Check its address in Settings &gt; Providers and that it is running.</source>
        <translation>无法连接服务商。请在“设置 &gt; 服务商”中检查地址，并确认它正在运行。</translation>
    </message>
    <message>
        <source>The provider took too long to answer. Try again.</source>
        <translation>服务商响应超时。请重试。</translation>
    </message>
    <message>
        <source>The provider sent an answer the app could not read.</source>
        <translation>服务商返回了应用无法读取的内容。</translation>
    </message>
    <message>
        <source>The provider stopped the reply with an error. Details has its reason.</source>
        <translation>服务商因错误中止了回复。原因见详情。</translation>
    </message>
    <message>
        <source>The connection dropped before the reply was finished.</source>
        <translation>回复完成前连接已断开。</translation>
    </message>
    <message>
        <source>This chat can’t send yet: check its provider, model and API key in Settings &gt; Providers.</source>
        <translation>此对话暂时无法发送：请在“设置 &gt; 服务商”中检查它的服务商、模型和 API 密钥。</translation>
    </message>
    <message>
        <source>The model used tools many times without answering, so the reply was stopped. Send a message to go on.</source>
        <translation>模型多次使用工具却没有作答，因此回复已停止。发送一条消息即可继续。</translation>
    </message>
    <message>
        <source>The chat&apos;s older part could not be summarised to make room, so nothing was sent. Try again.</source>
        <translation>无法汇总对话较早的部分以腾出空间，因此没有发送任何内容。请重试。</translation>
    </message>
    <message>
        <source>The newest message is too long for this model&apos;s context window. Shorten it or pick another model.</source>
        <translation>最新的消息超出了此模型的上下文窗口。请缩短它或选择其他模型。</translation>
    </message>
    <message>
        <source>This is a pi session, so it can’t be changed here. Fork it or continue it in pidesktop.</source>
        <translation>这是 pi 会话，无法在这里更改。请分叉它，或在 pidesktop 中继续它。</translation>
    </message>
</context>
<context>
    <name>ProjectActions</name>
    <message>
        <source>Choose the project’s folder</source>
        <translation>选择项目文件夹</translation>
    </message>
    <message>
        <source>New chat in this project</source>
        <translation>在此项目中新建对话</translation>
    </message>
    <message>
        <source>Rename project…</source>
        <translation>重命名项目…</translation>
    </message>
    <message>
        <source>Project memory…</source>
        <translation>项目记忆…</translation>
    </message>
    <message>
        <source>Open folder</source>
        <translation>打开文件夹</translation>
    </message>
    <message>
        <source>The folder can’t be found</source>
        <translation>找不到该文件夹</translation>
    </message>
    <message>
        <source>Add to a project group…</source>
        <translation>添加到项目组…</translation>
    </message>
    <message>
        <source>Edit project group…</source>
        <translation>编辑项目组…</translation>
    </message>
    <message>
        <source>Group memory and instructions…</source>
        <translation>组记忆和指令…</translation>
    </message>
    <message>
        <source>Remove project…</source>
        <translation>移除项目…</translation>
    </message>
    <message>
        <source>Remove project group…</source>
        <translation>移除项目组…</translation>
    </message>
    <message>
        <source>Rename project</source>
        <translation>重命名项目</translation>
    </message>
    <message>
        <source>A name for the project in %1:</source>
        <translation>%1 中项目的名称：</translation>
    </message>
    <message>
        <source>The folder %1 can’t be found. Its chats are kept.</source>
        <translation>找不到文件夹 %1。该项目的对话仍会保留。</translation>
    </message>
    <message>
        <source>Remove project</source>
        <translation>移除项目</translation>
    </message>
    <message>
        <source>Remove the project “%1”?</source>
        <translation>要移除项目“%1”吗？</translation>
    </message>
    <message>
        <source>Its chats stay and move under Chats, and its folder on disk is not touched. Its project memory is deleted.</source>
        <translation>其中的对话会保留并移到“对话”下，磁盘上的文件夹也不会被改动。它的项目记忆会被删除。</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>Project memory</source>
        <translation>项目记忆</translation>
    </message>
    <message>
        <source>Plain text or Markdown. Sent with every message of a chat in this project, marked as your own notes.</source>
        <translation>纯文本或 Markdown。会随此项目中对话的每条消息一起发送，并标记为你自己的备注。</translation>
    </message>
    <message>
        <source>Project memory: %1</source>
        <translation>项目记忆：%1</translation>
    </message>
    <message>
        <source>What the model should know about this project: conventions, where things are, what to avoid.</source>
        <translation>模型应了解的关于此项目的信息：约定、各类内容的位置、需要避免的事项。</translation>
    </message>
    <message>
        <source>Remove project group</source>
        <translation>移除项目组</translation>
    </message>
    <message>
        <source>Remove the project group “%1”?</source>
        <translation>要移除项目组“%1”吗？</translation>
    </message>
    <message>
        <source>Its projects and their chats stay. The group’s memory and instructions are deleted.</source>
        <translation>组内项目及其对话都会保留。该组的记忆和指令会被删除。</translation>
    </message>
</context>
<context>
    <name>ProjectPicker</name>
    <message>
        <source>No project</source>
        <translation>无项目</translation>
    </message>
    <message>
        <source>This chat belongs to no project. Click to put it in one.</source>
        <translation>此对话不属于任何项目。点击可将其放入某个项目。</translation>
    </message>
    <message>
        <source>Project folder: %1. Click to move this chat to another project.</source>
        <translation>项目文件夹：%1。点击可将此对话移到其他项目。</translation>
    </message>
    <message>
        <source>The project’s folder can’t be found; its chats are kept.</source>
        <translation>找不到项目文件夹；其中的对话仍会保留。</translation>
    </message>
    <message>
        <source>New project…</source>
        <translation>新建项目…</translation>
    </message>
</context>
<context>
    <name>PromptEdit</name>
    <message>
        <source>Message pidesktop…  (Enter to send, Shift+Enter for a new line)</source>
        <translation>给 pidesktop 发消息…（Enter 发送，Shift+Enter 换行）</translation>
    </message>
</context>
<context>
    <name>ProvidersPage</name>
    <message>
        <source>Offline demo (no AI)</source>
        <translation>离线演示（无 AI）</translation>
    </message>
    <message>
        <source>Custom</source>
        <translation>自定义</translation>
    </message>
    <message>
        <source>Keys are encrypted on this computer with a key stored next to them, so any program running as your user can read them.</source>
        <translation>密钥在这台电脑上加密保存，但解密所用的密钥就存放在旁边，因此以你的用户身份运行的任何程序都能读取它们。</translation>
    </message>
    <message>
        <source>•••••• stored</source>
        <translation>•••••• 已保存</translation>
    </message>
    <message>
        <source>Give the provider a name of at most 80 characters.</source>
        <translation>请为服务商起一个不超过 80 个字符的名称。</translation>
    </message>
    <message>
        <source>The base URL must start with http:// or https://, like http://localhost:11434/v1, with no spaces, user name or password in it.</source>
        <translation>基础 URL 必须以 http:// 或 https:// 开头，例如 http://localhost:11434/v1，且不能包含空格、用户名或密码。</translation>
    </message>
    <message>
        <source>The API key was not accepted. Paste it again, without line breaks.</source>
        <translation>API 密钥未被接受。请重新粘贴，不要带换行。</translation>
    </message>
    <message>
        <source>The model name must be at most 200 characters.</source>
        <translation>模型名称不能超过 200 个字符。</translation>
    </message>
    <message>
        <source>Providers</source>
        <translation>提供商</translation>
    </message>
    <message>
        <source>Add provider</source>
        <translation>添加提供商</translation>
    </message>
    <message>
        <source>Up</source>
        <translation>上移</translation>
    </message>
    <message>
        <source>Down</source>
        <translation>下移</translation>
    </message>
    <message>
        <source>Move the selected provider up</source>
        <translation>将所选提供商上移</translation>
    </message>
    <message>
        <source>Move the selected provider down</source>
        <translation>将所选提供商下移</translation>
    </message>
    <message>
        <source>Built in. It answers with a demo reply made from your own message, without an AI model or the network, so you can try pidesktop before adding a provider. It cannot be edited or deleted.</source>
        <translation>内置。它根据你自己的消息生成演示回复，不使用 AI 模型，也不联网，方便你在添加提供商之前先试用 pidesktop。它无法编辑或删除。</translation>
    </message>
    <message>
        <source>Use as default</source>
        <translation>设为默认</translation>
    </message>
    <message>
        <source>Remove key</source>
        <translation>移除密钥</translation>
    </message>
    <message>
        <source>Enabled</source>
        <translation>启用</translation>
    </message>
    <message>
        <source>None</source>
        <translation>无</translation>
    </message>
    <message>
        <source>Refresh models</source>
        <translation>刷新模型</translation>
    </message>
    <message>
        <source>Models are fetched when you save.</source>
        <translation>保存时会获取模型列表。</translation>
    </message>
    <message>
        <source>Preset</source>
        <translation>预设</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Base URL</source>
        <translation>基础 URL</translation>
    </message>
    <message>
        <source>API key</source>
        <translation>API 密钥</translation>
    </message>
    <message>
        <source>Default model</source>
        <translation>默认模型</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>Delete…</source>
        <translation>删除…</translation>
    </message>
    <message>
        <source>Provider added.</source>
        <translation>已添加提供商。</translation>
    </message>
    <message>
        <source>Saved.</source>
        <translation>已保存。</translation>
    </message>
    <message>
        <source>API key removed.</source>
        <translation>已移除 API 密钥。</translation>
    </message>
    <message>
        <source>New chats use %1 with %2.</source>
        <translation>新对话将使用 %1（%2）。</translation>
    </message>
    <message>
        <source>New chats use %1.</source>
        <translation>新对话将使用 %1。</translation>
    </message>
    <message>
        <source>Provider deleted.</source>
        <translation>已删除提供商。</translation>
    </message>
    <message>
        <source>Refreshing…</source>
        <translation>正在刷新…</translation>
    </message>
    <message>
        <source>Delete provider</source>
        <translation>删除提供商</translation>
    </message>
    <message>
        <source>Delete “%1”?</source>
        <translation>要删除“%1”吗？</translation>
    </message>
    <message>
        <source>Its model list and stored API key are removed from this computer. Chats that used it keep their messages.</source>
        <translation>它的模型列表和已保存的 API 密钥将从这台电脑上移除。用过它的对话会保留其中的消息。</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>the new provider</source>
        <translation>新的服务商</translation>
    </message>
    <message>
        <source>your changes to the provider “%1”</source>
        <translation>对服务商“%1”的更改</translation>
    </message>
    <message>
        <source>Built in · no network</source>
        <translation>内置 · 无需联网</translation>
    </message>
    <message>
        <source>New provider</source>
        <translation>新提供商</translation>
    </message>
    <message>
        <source>Leave empty to keep the stored key; type a new one to replace it.</source>
        <translation>留空则保留已保存的密钥；输入新密钥即可替换。</translation>
    </message>
    <message>
        <source>Default</source>
        <translation>默认</translation>
    </message>
    <message>
        <source>Off</source>
        <translation>已停用</translation>
    </message>
    <message>
        <source>Not set</source>
        <translation>未设置</translation>
    </message>
    <message>
        <source>Optional for local servers</source>
        <translation>本地服务器可不填</translation>
    </message>
    <message>
        <source>Paste your API key</source>
        <translation>粘贴你的 API 密钥</translation>
    </message>
    <message>
        <source>%1 new</source>
        <translation>新增 %1 个</translation>
    </message>
    <message>
        <source>%1 no longer listed</source>
        <translation>%1 个已不再提供</translation>
    </message>
    <message>
        <source>1 model available</source>
        <translation>可用模型 1 个</translation>
    </message>
    <message>
        <source>%1 models available</source>
        <translation>可用模型 %1 个</translation>
    </message>
    <message>
        <source>%1.</source>
        <translation>%1。</translation>
    </message>
    <message>
        <source>, </source>
        <comment>between the items of a short list</comment>
        <translation>，</translation>
    </message>
    <message>
        <source>%1 (%2).</source>
        <translation>%1（%2）。</translation>
    </message>
</context>
<context>
    <name>ProxyFields</name>
    <message>
        <source>Use the system&apos;s proxy settings</source>
        <translation>使用系统代理设置</translation>
    </message>
    <message>
        <source>No proxy</source>
        <translation>不使用代理</translation>
    </message>
    <message>
        <source>This proxy…</source>
        <translation>使用此代理…</translation>
    </message>
    <message>
        <source>How pidesktop reaches model providers and MCP servers</source>
        <translation>pidesktop 连接模型提供商和 MCP 服务器的方式</translation>
    </message>
    <message>
        <source>Proxy address</source>
        <translation>代理地址</translation>
    </message>
    <message>
        <source>Go around the proxy for</source>
        <translation>以下地址不经过代理</translation>
    </message>
    <message>
        <source>localhost, 10.0.0.0/8, .corp</source>
        <translation>localhost, 10.0.0.0/8, .corp</translation>
    </message>
    <message>
        <source>Addresses that go around the proxy</source>
        <translation>不经过代理的地址</translation>
    </message>
    <message>
        <source>Host names, addresses or networks, separated by commas; example.com also covers its subdomains</source>
        <translation>主机名、地址或网段，用逗号分隔；example.com 也包括其子域名</translation>
    </message>
    <message>
        <source>Type the proxy&apos;s address; it is used once you leave the field.</source>
        <translation>输入代理地址；离开此输入框后即生效。</translation>
    </message>
</context>
<context>
    <name>QueueStrip</name>
    <message>
        <source>Resume</source>
        <translation>继续</translation>
    </message>
    <message>
        <source>Send the next waiting prompt</source>
        <translation>发送下一条等待中的消息</translation>
    </message>
    <message>
        <source>1 prompt waiting</source>
        <translation>1 条消息等待发送</translation>
    </message>
    <message>
        <source>%1 prompts waiting</source>
        <translation>%1 条消息等待发送</translation>
    </message>
    <message>
        <source>not sent</source>
        <translation>未发送</translation>
    </message>
    <message>
        <source>Retry</source>
        <translation>重试</translation>
    </message>
    <message>
        <source>Sending failed: %1</source>
        <translation>发送失败：%1</translation>
    </message>
    <message>
        <source>next</source>
        <translation>下一条</translation>
    </message>
    <message>
        <source>Send now</source>
        <translation>立即发送</translation>
    </message>
    <message>
        <source>Deliver this prompt next</source>
        <translation>下一条就发送这条消息</translation>
    </message>
    <message>
        <source>Move up</source>
        <translation>上移</translation>
    </message>
    <message>
        <source>Move down</source>
        <translation>下移</translation>
    </message>
    <message>
        <source>Remove from the queue</source>
        <translation>从队列中移除</translation>
    </message>
</context>
<context>
    <name>QuitQuestion</name>
    <message>
        <source>Quit pidesktop</source>
        <translation>退出 pidesktop</translation>
    </message>
    <message>
        <source>A reply is still being written.</source>
        <translation>还有一条回复正在生成。</translation>
    </message>
    <message>
        <source>Wait for it and pidesktop quits when it is finished, or stop it now: it is kept as far as it got.</source>
        <translation>等待它完成后 pidesktop 再退出，或者现在停止：已生成的部分会保留。</translation>
    </message>
    <message>
        <source>Wait, then quit</source>
        <translation>等待后退出</translation>
    </message>
    <message>
        <source>Stop and quit</source>
        <translation>停止并退出</translation>
    </message>
    <message>
        <source>pidesktop quits when the reply is finished.</source>
        <translation>回复完成后 pidesktop 将退出。</translation>
    </message>
</context>
<context>
    <name>ReadOnlyBanner</name>
    <message>
        <source>Fork</source>
        <translation>分叉</translation>
    </message>
    <message>
        <source>Copy this branch into a new pi session beside it</source>
        <translation>将此分支复制为一个新的 pi 会话，与原会话并列</translation>
    </message>
    <message>
        <source>pi session</source>
        <translation>pi 会话</translation>
    </message>
    <message>
        <source>Read in place from pi’s file. Fork makes a copy; what you send is added to the file, as pi would.</source>
        <translation>直接从 pi 的文件中读取。分叉会创建副本；你发送的内容会像在 pi 中一样追加到该文件。</translation>
    </message>
</context>
<context>
    <name>RelativeTime</name>
    <message>
        <source>Mon</source>
        <translation>周一</translation>
    </message>
    <message>
        <source>Tue</source>
        <translation>周二</translation>
    </message>
    <message>
        <source>Wed</source>
        <translation>周三</translation>
    </message>
    <message>
        <source>Thu</source>
        <translation>周四</translation>
    </message>
    <message>
        <source>Fri</source>
        <translation>周五</translation>
    </message>
    <message>
        <source>Sat</source>
        <translation>周六</translation>
    </message>
    <message>
        <source>Sun</source>
        <translation>周日</translation>
    </message>
    <message>
        <source>Jan</source>
        <translation>1月</translation>
    </message>
    <message>
        <source>Feb</source>
        <translation>2月</translation>
    </message>
    <message>
        <source>Mar</source>
        <translation>3月</translation>
    </message>
    <message>
        <source>Apr</source>
        <translation>4月</translation>
    </message>
    <message>
        <source>May</source>
        <translation>5月</translation>
    </message>
    <message>
        <source>Jun</source>
        <translation>6月</translation>
    </message>
    <message>
        <source>Jul</source>
        <translation>7月</translation>
    </message>
    <message>
        <source>Aug</source>
        <translation>8月</translation>
    </message>
    <message>
        <source>Sep</source>
        <translation>9月</translation>
    </message>
    <message>
        <source>Oct</source>
        <translation>10月</translation>
    </message>
    <message>
        <source>Nov</source>
        <translation>11月</translation>
    </message>
    <message>
        <source>Dec</source>
        <translation>12月</translation>
    </message>
    <message>
        <source>now</source>
        <translation>刚刚</translation>
    </message>
    <message>
        <source>%1m</source>
        <comment>minutes ago</comment>
        <translation>%1 分钟前</translation>
    </message>
    <message>
        <source>%1h</source>
        <comment>hours ago</comment>
        <translation>%1 小时前</translation>
    </message>
    <message>
        <source>Yesterday</source>
        <translation>昨天</translation>
    </message>
    <message>
        <source>%1 %2</source>
        <comment>month name, day of month</comment>
        <translation>%3月%2日</translation>
    </message>
</context>
<context>
    <name>RepairDialog</name>
    <message>
        <source>Repair data</source>
        <translation>修复数据</translation>
    </message>
    <message>
        <source>Checks the database that lists your chats. If it is damaged, pidesktop keeps it aside and rebuilds it from your chat files, with what the damaged copy still holds of your settings and providers. Your chat files are not changed. You can keep using pidesktop meanwhile.</source>
        <translation>检查列出你所有聊天的数据库。如果它已损坏，pidesktop 会把它另外保留，并用你的聊天文件重建它，同时取回损坏副本中仍可读的设置和服务商。你的聊天文件不会被改动。其间你可以继续使用 pidesktop。</translation>
    </message>
    <message>
        <source>Details</source>
        <translation>详情</translation>
    </message>
    <message>
        <source>Repair</source>
        <translation>修复</translation>
    </message>
    <message>
        <source>Checking the database…</source>
        <translation>正在检查数据库…</translation>
    </message>
    <message>
        <source>Rebuilding the database from your chat files…</source>
        <translation>正在用你的聊天文件重建数据库…</translation>
    </message>
    <message>
        <source>Looking for chats and messages the database missed…</source>
        <translation>正在查找数据库遗漏的聊天和消息…</translation>
    </message>
    <message>
        <source>The database is sound. Nothing needed repair.</source>
        <translation>数据库完好，无需修复。</translation>
    </message>
    <message>
        <source>a chat came back from its file</source>
        <translation>一个聊天已从其文件中恢复</translation>
    </message>
    <message numerus="yes">
        <source>%n chats came back from their files</source>
        <translation>
            <numerusform>%n 个聊天已从其文件中恢复</numerusform>
        </translation>
    </message>
    <message>
        <source>a message missing from the chat and from search was added</source>
        <translation>已补上一条聊天和搜索中缺失的消息</translation>
    </message>
    <message numerus="yes">
        <source>%n messages missing from their chats and from search were added</source>
        <translation>
            <numerusform>已补上 %n 条聊天和搜索中缺失的消息</numerusform>
        </translation>
    </message>
    <message>
        <source>The database is sound. %1.</source>
        <translation>数据库完好。%1。</translation>
    </message>
    <message>
        <source>The database was damaged and has been rebuilt from your chat files: your chat came back.</source>
        <translation>数据库曾损坏，已用你的聊天文件重建：你的聊天已恢复。</translation>
    </message>
    <message numerus="yes">
        <source>The database was damaged and has been rebuilt from your chat files: %n chats came back.</source>
        <translation>
            <numerusform>数据库曾损坏，已用你的聊天文件重建：%n 个聊天已恢复。</numerusform>
        </translation>
    </message>
    <message>
        <source>Recovered from the damaged copy: %1.</source>
        <translation>已从损坏副本中取回：%1。</translation>
    </message>
    <message>
        <source>Could not be recovered: %1. Set them again if you had changed them.</source>
        <translation>无法恢复：%1。如果你曾修改过它们，请重新设置。</translation>
    </message>
    <message>
        <source>The damaged copy is kept as %1</source>
        <translation>损坏的副本保留为 %1</translation>
    </message>
    <message>
        <source>settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>providers</source>
        <translation>服务商</translation>
    </message>
    <message>
        <source>models</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>projects</source>
        <translation>项目</translation>
    </message>
    <message>
        <source>project memory</source>
        <translation>项目记忆</translation>
    </message>
    <message>
        <source>automations</source>
        <translation>自动化任务</translation>
    </message>
    <message>
        <source>Hide details</source>
        <translation>隐藏详情</translation>
    </message>
</context>
<context>
    <name>ReplyEditDialog</name>
    <message>
        <source>Edit reply</source>
        <translation>编辑回复</translation>
    </message>
    <message>
        <source>Your edited reply goes into a copy of this chat, which opens when you save. This chat stays as it is.</source>
        <translation>编辑后的回复会保存到此对话的副本中，保存后将打开该副本。此对话保持不变。</translation>
    </message>
    <message>
        <source>Save as new chat</source>
        <translation>另存为新对话</translation>
    </message>
</context>
<context>
    <name>RestoreDialog</name>
    <message>
        <source>Restore from a backup</source>
        <translation>从备份恢复</translation>
    </message>
    <message>
        <source>Rebuilds a data folder from the newest backup in a backup folder, into a new or empty folder. The data you use now is not touched.</source>
        <translation>用备份文件夹中最新的备份重建数据文件夹，放入一个新的或空的文件夹。你现在使用的数据不会被改动。</translation>
    </message>
    <message>
        <source>Backup folder (full path)</source>
        <translation>备份文件夹（完整路径）</translation>
    </message>
    <message>
        <source>Passphrase</source>
        <translation>密码短语</translation>
    </message>
    <message>
        <source>New data folder (full path)</source>
        <translation>新数据文件夹（完整路径）</translation>
    </message>
    <message>
        <source>Restore from</source>
        <translation>恢复自</translation>
    </message>
    <message>
        <source>Into</source>
        <translation>恢复到</translation>
    </message>
    <message>
        <source>Restore</source>
        <translation>恢复</translation>
    </message>
    <message>
        <source>Backup folder</source>
        <translation>备份文件夹</translation>
    </message>
    <message>
        <source>New data folder</source>
        <translation>新数据文件夹</translation>
    </message>
    <message>
        <source>Restored %1 files into %2. Open it with: pidesktop --data-dir %2</source>
        <translation>已将 %1 个文件恢复到 %2。打开方式：pidesktop --data-dir %2</translation>
    </message>
</context>
<context>
    <name>ReviewPage</name>
    <message>
        <source>What will be moved</source>
        <translation>将要移动的内容</translation>
    </message>
    <message>
        <source>Everything in the data folder is copied and checked file by file.</source>
        <translation>数据文件夹中的所有内容都会被复制，并逐个文件检查。</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>类别</translation>
    </message>
    <message>
        <source>Files</source>
        <translation>文件数</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <source>Counting…</source>
        <translation>正在统计…</translation>
    </message>
    <message>
        <source>In all: %1 in %2 files.</source>
        <translation>总计：%1，共 %2 个文件。</translation>
    </message>
    <message>
        <source>%1.</source>
        <translation>%1。</translation>
    </message>
    <message>
        <source>Not enough room: %1 is free there, the move needs %2. Go back and choose another place.</source>
        <translation>空间不足：那里剩余 %1，移动需要 %2。请返回并选择其他位置。</translation>
    </message>
    <message>
        <source>%1 free at the new place.</source>
        <translation>新位置剩余 %1。</translation>
    </message>
</context>
<context>
    <name>Reviews</name>
    <message>
        <source>The file changed since; nothing was reverted.</source>
        <translation>文件在此之后已被更改；没有撤销任何内容。</translation>
    </message>
    <message>
        <source>This change was reverted already.</source>
        <translation>此更改已经撤销。</translation>
    </message>
    <message>
        <source>This change can’t be reverted: the file was larger than 1 MiB, so its earlier version was not kept.</source>
        <translation>此更改无法撤销：文件大于 1 MiB，因此没有保留其早期版本。</translation>
    </message>
</context>
<context>
    <name>S3BackupDialog</name>
    <message>
        <source>Back up to S3</source>
        <translation>备份到 S3</translation>
    </message>
    <message>
        <source>Saves chats, attachments and settings, encrypted, into the bucket set in Settings &gt; Sync. Backing up again stores only what changed. Saved API keys are left out. To restore on another computer you need the bucket, its access key and the Settings &gt; Sync passphrase.</source>
        <translation>将聊天、附件和设置加密后保存到“设置 &gt; 同步”中设置的存储桶。再次备份只存储有变化的部分。已保存的 API 密钥不包括在内。要在另一台电脑上恢复，需要该存储桶、它的访问密钥和“设置 &gt; 同步”的密码短语。</translation>
    </message>
    <message>
        <source>Keep every backup</source>
        <translation>保留所有备份</translation>
    </message>
    <message>
        <source> newest backups kept</source>
        <translation> 个最新备份保留</translation>
    </message>
    <message>
        <source>Back up</source>
        <translation>备份</translation>
    </message>
    <message>
        <source>Backed up %1 (%2 new) to %3.</source>
        <translation>已备份 %1（新增 %2）到 %3。</translation>
    </message>
</context>
<context>
    <name>S3RestoreDialog</name>
    <message>
        <source>Restore from S3</source>
        <translation>从 S3 恢复</translation>
    </message>
    <message>
        <source>Rebuilds a data folder from a backup in the bucket set in Settings &gt; Sync, into a new or empty folder. The data you use now is not touched.</source>
        <translation>用“设置 &gt; 同步”中设置的存储桶里的备份，把数据文件夹重建到一个新的或空的文件夹中。你现在使用的数据不会被改动。</translation>
    </message>
    <message>
        <source>Press Show backups to list them</source>
        <translation>按“显示备份”列出它们</translation>
    </message>
    <message>
        <source>New data folder (full path)</source>
        <translation>新数据文件夹（完整路径）</translation>
    </message>
    <message>
        <source>Backup to restore</source>
        <translation>要恢复的备份</translation>
    </message>
    <message>
        <source>Into</source>
        <translation>恢复到</translation>
    </message>
    <message>
        <source>Show backups</source>
        <translation>显示备份</translation>
    </message>
    <message>
        <source>Restore</source>
        <translation>恢复</translation>
    </message>
    <message>
        <source>From %1 at %2</source>
        <translation>来自 %2 上的 %1</translation>
    </message>
    <message>
        <source>New data folder</source>
        <translation>新数据文件夹</translation>
    </message>
    <message>
        <source>%1 · %2 files · %3</source>
        <translation>%1 · %2 个文件 · %3</translation>
    </message>
    <message>
        <source>There are no backups in this bucket yet.</source>
        <translation>这个存储桶里还没有备份。</translation>
    </message>
    <message>
        <source>Restored %1 files into %2. Open it with: pidesktop --data-dir %2</source>
        <translation>已将 %1 个文件恢复到 %2。打开方式：pidesktop --data-dir %2</translation>
    </message>
</context>
<context>
    <name>S3RestoreForm</name>
    <message>
        <source>Endpoint URL (empty for AWS)</source>
        <translation>端点 URL（AWS 留空）</translation>
    </message>
    <message>
        <source>Bucket</source>
        <translation>存储桶</translation>
    </message>
    <message>
        <source>Prefix (optional)</source>
        <translation>前缀（可选）</translation>
    </message>
    <message>
        <source>Region (optional)</source>
        <translation>区域（可选）</translation>
    </message>
    <message>
        <source>Access key</source>
        <translation>访问密钥</translation>
    </message>
    <message>
        <source>Secret key</source>
        <translation>秘密密钥</translation>
    </message>
    <message>
        <source>Backup passphrase</source>
        <translation>备份密码短语</translation>
    </message>
</context>
<context>
    <name>SchemaBackupsDialog</name>
    <message>
        <source>Old database copies</source>
        <translation>旧数据库副本</translation>
    </message>
    <message>
        <source>When pidesktop updates your data to a new version, it first keeps a copy of the database as it was. Once you are sure everything is there, you can remove them.</source>
        <translation>pidesktop 将数据更新到新版本时，会先保留一份数据库原样的副本。确认一切无误后，你可以删除它们。</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>副本</translation>
    </message>
    <message>
        <source>Version</source>
        <translation>版本</translation>
    </message>
    <message>
        <source>Saved</source>
        <translation>保存时间</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <source>There are no old database copies.</source>
        <translation>没有旧数据库副本。</translation>
    </message>
    <message>
        <source>Remove…</source>
        <translation>删除…</translation>
    </message>
    <message>
        <source>Remove %1 (version %2, %3)?

%4</source>
        <translation>要删除 %1（版本 %2，%3）吗？

%4</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Are you sure? Without this copy, going back to a pidesktop that reads version %1 is no longer possible. Your current database is not affected.</source>
        <translation>确定吗？没有这份副本，就无法再回到读取版本 %1 的 pidesktop。当前数据库不受影响。</translation>
    </message>
    <message>
        <source>Remove for good</source>
        <translation>永久删除</translation>
    </message>
    <message>
        <source>Removed %1 (%2).</source>
        <translation>已删除 %1（%2）。</translation>
    </message>
</context>
<context>
    <name>Search</name>
    <message>
        <source>New chat</source>
        <translation>新对话</translation>
    </message>
    <message>
        <source>Type to search all your chats</source>
        <translation>输入关键词，搜索所有对话</translation>
    </message>
    <message>
        <source>No chats match “%1”</source>
        <translation>没有与“%1”匹配的对话</translation>
    </message>
    <message>
        <source>%1+ matches</source>
        <translation>%1+ 处匹配</translation>
    </message>
    <message>
        <source>1 match</source>
        <translation>1 处匹配</translation>
    </message>
    <message>
        <source>%1 matches</source>
        <translation>%1 处匹配</translation>
    </message>
</context>
<context>
    <name>SearchDelegate</name>
    <message>
        <source>automation</source>
        <translation>自动化任务</translation>
    </message>
    <message>
        <source>pi session</source>
        <translation>pi 会话</translation>
    </message>
    <message>
        <source>title</source>
        <translation>标题</translation>
    </message>
    <message>
        <source>project</source>
        <translation>项目</translation>
    </message>
</context>
<context>
    <name>SearchDialog</name>
    <message>
        <source>Search chats</source>
        <translation>搜索对话</translation>
    </message>
    <message>
        <source>Search chats…</source>
        <translation>搜索对话…</translation>
    </message>
    <message>
        <source>↑↓ to move  ·  Enter to open  ·  Esc to close</source>
        <translation>↑↓ 移动  ·  Enter 打开  ·  Esc 关闭</translation>
    </message>
    <message>
        <source>&amp;Automation runs</source>
        <translation>自动化任务运行(&amp;A)</translation>
    </message>
    <message>
        <source>Also search the chats your automations made (they are not in the sidebar; the Automations window lists them too)</source>
        <translation>同时搜索自动化任务创建的对话（它们不在侧边栏中；自动化任务窗口也会列出它们）</translation>
    </message>
    <message>
        <source>%1+ chats</source>
        <translation>%1+ 个对话</translation>
    </message>
    <message>
        <source>%1 of %2 chats</source>
        <translation>已显示 %1 个，共 %2 个对话</translation>
    </message>
</context>
<context>
    <name>SearchEntry</name>
    <message>
        <source>Search chats   Ctrl+K</source>
        <translation>搜索对话   Ctrl+K</translation>
    </message>
    <message>
        <source>Search every chat&apos;s title and messages (Ctrl+K)</source>
        <translation>搜索所有对话的标题和消息 (Ctrl+K)</translation>
    </message>
</context>
<context>
    <name>SearchModel</name>
    <message>
        <source>matches its name</source>
        <translation>名称匹配</translation>
    </message>
</context>
<context>
    <name>SessionDelegate</name>
    <message>
        <source>Chat title</source>
        <translation>对话标题</translation>
    </message>
</context>
<context>
    <name>SessionTreeModel</name>
    <message>
        <source>New chat</source>
        <translation>新对话</translation>
    </message>
    <message>
        <source>Chats</source>
        <translation>对话</translation>
    </message>
    <message>
        <source>Pinned</source>
        <translation>已置顶</translation>
    </message>
    <message>
        <source>pi sessions in %1</source>
        <translation>%1 中的 pi 会话</translation>
    </message>
    <message>
        <source>Pinned chats</source>
        <translation>已置顶的对话</translation>
    </message>
    <message>
        <source>Chats that belong to no project</source>
        <translation>不属于任何项目的对话</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <source>General</source>
        <translation>通用</translation>
    </message>
    <message>
        <source>Providers</source>
        <translation>提供商</translation>
    </message>
    <message>
        <source>Tools</source>
        <translation>工具</translation>
    </message>
    <message>
        <source>Data</source>
        <translation>数据</translation>
    </message>
    <message>
        <source>Sync</source>
        <translation>同步</translation>
    </message>
    <message>
        <source>pidesktop %1</source>
        <translation>pidesktop %1</translation>
    </message>
    <message>
        <source>pidesktop %1 · data schema v%2</source>
        <translation>pidesktop %1 · 数据结构 v%2</translation>
    </message>
    <message>
        <source>Usage</source>
        <translation>用量</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
</context>
<context>
    <name>Sidebar</name>
    <message>
        <source>New chat</source>
        <translation>新对话</translation>
    </message>
    <message>
        <source>New chat (Ctrl+N)</source>
        <translation>新对话（Ctrl+N）</translation>
    </message>
    <message>
        <source>Rename</source>
        <translation>重命名</translation>
    </message>
    <message>
        <source>Delete…</source>
        <translation>删除…</translation>
    </message>
    <message>
        <source>Pin</source>
        <translation>置顶</translation>
    </message>
    <message>
        <source>Archive</source>
        <translation>归档</translation>
    </message>
    <message>
        <source>Fork</source>
        <translation>分叉</translation>
    </message>
    <message>
        <source>Copy this chat into a new one</source>
        <translation>将此对话复制为新对话</translation>
    </message>
    <message>
        <source>Compact now</source>
        <translation>立即压缩</translation>
    </message>
    <message>
        <source>Summarise the earlier messages to free the model&apos;s context</source>
        <translation>汇总较早的消息，释放模型的上下文</translation>
    </message>
    <message>
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <source>Save this chat as Markdown or JSON</source>
        <translation>将此对话保存为 Markdown 或 JSON</translation>
    </message>
    <message>
        <source>Move project up</source>
        <translation>上移项目</translation>
    </message>
    <message>
        <source>Move project down</source>
        <translation>下移项目</translation>
    </message>
    <message>
        <source>Sort and filter chats</source>
        <translation>排序和筛选对话</translation>
    </message>
    <message>
        <source>Automations</source>
        <translation>自动化任务</translation>
    </message>
    <message>
        <source>Prompts that run on a schedule (Ctrl+Shift+A)</source>
        <translation>定时运行的提示词（Ctrl+Shift+A）</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>Providers, tools, data and the look of the app (Ctrl+,)</source>
        <translation>服务商、工具、数据和应用外观 (Ctrl+,)</translation>
    </message>
    <message>
        <source>Unpin project</source>
        <translation>取消置顶项目</translation>
    </message>
    <message>
        <source>Pin project</source>
        <translation>置顶项目</translation>
    </message>
    <message>
        <source>Unarchive project</source>
        <translation>取消归档项目</translation>
    </message>
    <message>
        <source>Archive project</source>
        <translation>归档项目</translation>
    </message>
    <message>
        <source>Unpin</source>
        <translation>取消置顶</translation>
    </message>
    <message>
        <source>Unarchive</source>
        <translation>取消归档</translation>
    </message>
    <message>
        <source>Sort chats by</source>
        <translation>对话排序方式</translation>
    </message>
    <message>
        <source>Recent activity</source>
        <translation>最近活动</translation>
    </message>
    <message>
        <source>Newest first</source>
        <translation>最新的在前</translation>
    </message>
    <message>
        <source>Oldest first</source>
        <translation>最早的在前</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Sort projects by</source>
        <translation>项目排序方式</translation>
    </message>
    <message>
        <source>Manual order (Alt+Up/Down)</source>
        <translation>手动排序（Alt+上/下）</translation>
    </message>
    <message>
        <source>Show archived</source>
        <translation>显示已归档</translation>
    </message>
    <message>
        <source>Show pi sessions</source>
        <translation>显示 pi 会话</translation>
    </message>
    <message>
        <source>List the pi coding agent&apos;s own sessions beside your chats</source>
        <translation>在你的对话旁列出 pi 编程智能体自己的会话</translation>
    </message>
</context>
<context>
    <name>SnapshotDialog</name>
    <message>
        <source>Back up everything</source>
        <translation>全部备份</translation>
    </message>
    <message>
        <source>Saves chats, attachments and settings, encrypted with a passphrase, into a backup folder (another disk is best). Backing up to the same folder again stores only what changed. Saved API keys are left out. Without the passphrase the backup cannot be read.</source>
        <translation>用密码短语加密，把聊天、附件和设置保存到备份文件夹（最好在另一块磁盘上）。再次备份到同一文件夹时只保存有变化的部分。已保存的 API 密钥不包括在内。没有密码短语就无法读取备份。</translation>
    </message>
    <message>
        <source>Backup folder (full path)</source>
        <translation>备份文件夹（完整路径）</translation>
    </message>
    <message>
        <source>Passphrase</source>
        <translation>密码短语</translation>
    </message>
    <message>
        <source>Passphrase again</source>
        <translation>再次输入密码短语</translation>
    </message>
    <message>
        <source>Keep every backup</source>
        <translation>保留所有备份</translation>
    </message>
    <message>
        <source> newest backups kept</source>
        <translation> 个最新备份保留</translation>
    </message>
    <message>
        <source>Back up</source>
        <translation>备份</translation>
    </message>
    <message>
        <source>Backup folder</source>
        <translation>备份文件夹</translation>
    </message>
    <message>
        <source>Type a passphrase; you will need it to restore.</source>
        <translation>请输入密码短语；恢复时需要用到它。</translation>
    </message>
    <message>
        <source>The two passphrases differ; type the same one twice.</source>
        <translation>两次输入的密码短语不一致；请输入相同的密码短语两次。</translation>
    </message>
    <message>
        <source>Backed up %1 (%2 new) to %3.</source>
        <translation>已备份 %1（新增 %2）到 %3。</translation>
    </message>
</context>
<context>
    <name>StorageWizard</name>
    <message>
        <source>Chat database</source>
        <translation>聊天数据库</translation>
    </message>
    <message>
        <source>Transcripts</source>
        <translation>对话记录</translation>
    </message>
    <message>
        <source>Attachments</source>
        <translation>附件</translation>
    </message>
    <message>
        <source>Secrets</source>
        <translation>密钥</translation>
    </message>
    <message>
        <source>Synced configuration</source>
        <translation>同步的配置</translation>
    </message>
    <message>
        <source>Plugins</source>
        <translation>插件</translation>
    </message>
    <message>
        <source>Logs</source>
        <translation>日志</translation>
    </message>
    <message>
        <source>Caches</source>
        <translation>缓存</translation>
    </message>
    <message>
        <source>Scratch files</source>
        <translation>临时文件</translation>
    </message>
    <message>
        <source>Visualizations</source>
        <translation>可视化</translation>
    </message>
    <message>
        <source>Review snapshots</source>
        <translation>审阅快照</translation>
    </message>
    <message>
        <source>Crash reports</source>
        <translation>崩溃报告</translation>
    </message>
    <message>
        <source>Other</source>
        <translation>其他</translation>
    </message>
    <message>
        <source>Window state</source>
        <translation>窗口状态</translation>
    </message>
    <message>
        <source>Your data now lives in %1.</source>
        <translation>你的数据现在位于 %1。</translation>
    </message>
    <message>
        <source>Move data folder</source>
        <translation>移动数据文件夹</translation>
    </message>
    <message>
        <source>Restart and move</source>
        <translation>重启并移动</translation>
    </message>
    <message>
        <source>Next</source>
        <translation>下一步</translation>
    </message>
    <message>
        <source>Back</source>
        <translation>上一步</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Your data goes into %1
(chats and files in %2, window settings in %3)</source>
        <translation>你的数据将放入 %1
（对话和文件在 %2，窗口设置在 %3）</translation>
    </message>
</context>
<context>
    <name>SyncConflicts</name>
    <message>
        <source>Theme</source>
        <translation>主题</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <source>Show thinking</source>
        <translation>显示思考过程</translation>
    </message>
    <message>
        <source>Transcript</source>
        <translation>对话记录</translation>
    </message>
    <message>
        <source>Large paste threshold</source>
        <translation>长文本粘贴阈值</translation>
    </message>
    <message>
        <source>Agent permissions</source>
        <translation>智能体权限</translation>
    </message>
    <message>
        <source>Commands may use the network</source>
        <translation>命令可以使用网络</translation>
    </message>
    <message>
        <source>Keep the tool log</source>
        <translation>工具日志保留时长</translation>
    </message>
    <message>
        <source>Network proxy</source>
        <translation>网络代理</translation>
    </message>
    <message>
        <source>Compact the context at</source>
        <translation>上下文压缩阈值</translation>
    </message>
    <message>
        <source>the price of the model %1</source>
        <translation>模型 %1 的价格</translation>
    </message>
    <message>
        <source>the memory of the project %1</source>
        <translation>项目 %1 的记忆</translation>
    </message>
    <message>
        <source>the project group %1</source>
        <translation>项目组 %1</translation>
    </message>
    <message>
        <source>the memory of the project group %1</source>
        <translation>项目组 %1 的记忆</translation>
    </message>
    <message>
        <source>the instructions of the project group %1</source>
        <translation>项目组 %1 的指令</translation>
    </message>
    <message>
        <source>the MCP server %1</source>
        <translation>MCP 服务器 %1</translation>
    </message>
    <message>
        <source>the setting %1</source>
        <translation>设置 %1</translation>
    </message>
    <message>
        <source>the provider %1</source>
        <translation>服务商 %1</translation>
    </message>
    <message>
        <source>the API key of the provider %1</source>
        <translation>服务商 %1 的 API 密钥</translation>
    </message>
    <message>
        <source>the model %1 of %2</source>
        <translation>%2 的模型 %1</translation>
    </message>
    <message>
        <source>the automation %1</source>
        <translation>自动化任务 %1</translation>
    </message>
    <message>
        <source>an automation</source>
        <translation>一个自动化任务</translation>
    </message>
    <message>
        <source>the provider order or default model</source>
        <translation>服务商顺序或默认模型</translation>
    </message>
    <message>
        <source>a synced item (%1)</source>
        <translation>一个同步项（%1）</translation>
    </message>
</context>
<context>
    <name>SyncPage</name>
    <message>
        <source>This computer</source>
        <translation>这台电脑</translation>
    </message>
    <message>
        <source>Your other computers show this name beside an automation that runs on this one.</source>
        <translation>你的其他电脑会在于这台电脑上运行的自动化旁显示这个名称。</translation>
    </message>
    <message>
        <source>Sync</source>
        <translation>同步</translation>
    </message>
    <message>
        <source>Keep settings, providers, models, prices, MCP servers, project memory and groups, and automations the same on your computers through an S3 bucket. Everything is encrypted with your passphrase before it leaves this computer.</source>
        <translation>通过 S3 存储桶让你各台电脑上的设置、提供商、模型、价格、MCP 服务器、项目记忆和分组以及自动化保持一致。所有内容在离开这台电脑前都会用你的口令加密。</translation>
    </message>
    <message>
        <source>https://s3.example.com (empty for AWS)</source>
        <translation>https://s3.example.com（AWS 留空）</translation>
    </message>
    <message>
        <source>optional folder in the bucket</source>
        <translation>存储桶中的文件夹（可选）</translation>
    </message>
    <message>
        <source>Sync API keys too</source>
        <translation>同时同步 API 密钥</translation>
    </message>
    <message>
        <source>Endpoint</source>
        <translation>端点</translation>
    </message>
    <message>
        <source>Region</source>
        <translation>区域</translation>
    </message>
    <message>
        <source>Bucket</source>
        <translation>存储桶</translation>
    </message>
    <message>
        <source>Prefix</source>
        <translation>前缀</translation>
    </message>
    <message>
        <source>Access key</source>
        <translation>访问密钥</translation>
    </message>
    <message>
        <source>Secret key</source>
        <translation>私有密钥</translation>
    </message>
    <message>
        <source>Passphrase</source>
        <translation>口令</translation>
    </message>
    <message>
        <source>Test connection</source>
        <translation>测试连接</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>Sync now</source>
        <translation>立即同步</translation>
    </message>
    <message>
        <source>Show earlier versions</source>
        <translation>显示早期版本</translation>
    </message>
    <message>
        <source>Restore this version</source>
        <translation>恢复此版本</translation>
    </message>
    <message>
        <source>Back up to S3 every day</source>
        <translation>每天备份到 S3</translation>
    </message>
    <message>
        <source>While pidesktop runs, once a day: chats, attachments and settings, sealed with the passphrase.</source>
        <translation>pidesktop 运行时每天一次：聊天、附件和设置，用密码短语加密。</translation>
    </message>
    <message>
        <source>Not set up yet.</source>
        <translation>尚未设置。</translation>
    </message>
    <message>
        <source>saved</source>
        <translation>已保存</translation>
    </message>
    <message>
        <source>Synced up to revision %1.</source>
        <translation>已同步到第 %1 版。</translation>
    </message>
    <message>
        <source>1 change waits for the next sync.</source>
        <translation>1 项更改等待下次同步。</translation>
    </message>
    <message>
        <source>%1 changes wait for the next sync.</source>
        <translation>%1 项更改等待下次同步。</translation>
    </message>
    <message>
        <source>1 change</source>
        <translation>1 项更改</translation>
    </message>
    <message>
        <source>%1 changes</source>
        <translation>%1 项更改</translation>
    </message>
    <message>
        <source>Version %1 · %2 · %3</source>
        <translation>第 %1 版 · %2 · %3</translation>
    </message>
    <message>
        <source>Changed on two computers: %1; the newer change was kept.</source>
        <translation>两台电脑都改了 %1；保留了较新的更改。</translation>
    </message>
    <message>
        <source>Last daily backup: %1, %2 new.</source>
        <translation>上次每日备份：%1，新增 %2。</translation>
    </message>
    <message>
        <source>Last daily backup, %1: %2</source>
        <translation>上次每日备份，%1：%2</translation>
    </message>
    <message>
        <source>The bucket answers and accepts data.</source>
        <translation>存储桶可以访问并能写入数据。</translation>
    </message>
    <message>
        <source>Saved. Sync now sends and fetches settings.</source>
        <translation>已保存。点“立即同步”即可发送和获取设置。</translation>
    </message>
    <message>
        <source>Synced: %1 sent, %2 received.</source>
        <translation>已同步：发送 %1 项，接收 %2 项。</translation>
    </message>
    <message>
        <source>There are no versions in the bucket yet: press Sync now.</source>
        <translation>存储桶中还没有版本：请点“立即同步”。</translation>
    </message>
    <message>
        <source>Version %1 restored here and on the next sync of your other computers.</source>
        <translation>已在此处恢复第 %1 版，其他电脑下次同步时也会恢复。</translation>
    </message>
</context>
<context>
    <name>TaskEditor</name>
    <message>
        <source>Default: ask first (Run now follows Settings)</source>
        <translation>默认：先询问（立即运行时按设置）</translation>
    </message>
    <message>
        <source>A scheduled run has nobody to ask: a change or command that needs asking is skipped, and the model is told why.</source>
        <translation>定时运行时无人可问：需要询问的更改或命令会被跳过，并告知模型原因。</translation>
    </message>
    <message>
        <source>Permissions</source>
        <translation>权限</translation>
    </message>
    <message>
        <source>Every few minutes</source>
        <translation>每隔几分钟</translation>
    </message>
    <message>
        <source>Every few hours</source>
        <translation>每隔几小时</translation>
    </message>
    <message>
        <source>Every day</source>
        <translation>每天</translation>
    </message>
    <message>
        <source>On some weekdays</source>
        <translation>每周指定几天</translation>
    </message>
    <message>
        <source>Once</source>
        <translation>仅一次</translation>
    </message>
    <message>
        <source>Agent</source>
        <translation>智能体</translation>
    </message>
    <message>
        <source>Plan</source>
        <translation>计划</translation>
    </message>
    <message>
        <source>Goal</source>
        <translation>目标</translation>
    </message>
    <message>
        <source>Off (default)</source>
        <translation>关闭（默认）</translation>
    </message>
    <message>
        <source>Minimal</source>
        <translation>最少</translation>
    </message>
    <message>
        <source>Low</source>
        <translation>低</translation>
    </message>
    <message>
        <source>Medium</source>
        <translation>中</translation>
    </message>
    <message>
        <source>High</source>
        <translation>高</translation>
    </message>
    <message>
        <source>Extra high</source>
        <translation>很高</translation>
    </message>
    <message>
        <source>Maximum</source>
        <translation>最高</translation>
    </message>
    <message>
        <source>A new chat for each run</source>
        <translation>每次运行新建一个对话</translation>
    </message>
    <message>
        <source>Continue the same chat each run</source>
        <translation>每次运行继续同一个对话</translation>
    </message>
    <message>
        <source>Mon</source>
        <translation>周一</translation>
    </message>
    <message>
        <source>Tue</source>
        <translation>周二</translation>
    </message>
    <message>
        <source>Wed</source>
        <translation>周三</translation>
    </message>
    <message>
        <source>Thu</source>
        <translation>周四</translation>
    </message>
    <message>
        <source>Fri</source>
        <translation>周五</translation>
    </message>
    <message>
        <source>Sat</source>
        <translation>周六</translation>
    </message>
    <message>
        <source>Sun</source>
        <translation>周日</translation>
    </message>
    <message>
        <source>Morning news digest</source>
        <translation>晨间新闻摘要</translation>
    </message>
    <message>
        <source>What the task asks, as you would type it in a chat</source>
        <translation>任务要问的内容，就像你在对话中输入的那样</translation>
    </message>
    <message>
        <source> h</source>
        <translation> 小时</translation>
    </message>
    <message>
        <source> min</source>
        <translation> 分钟</translation>
    </message>
    <message>
        <source>every</source>
        <translation>每</translation>
    </message>
    <message>
        <source>at</source>
        <translation>于</translation>
    </message>
    <message>
        <source>Folder to work in (optional, absolute path)</source>
        <translation>工作文件夹（可选，绝对路径）</translation>
    </message>
    <message>
        <source>Plan and Goal wait for you to approve, so a scheduled run in these modes stops with an error. Choose Agent to let it run on its own.</source>
        <translation>计划和目标模式需要等你批准，因此在这两种模式下定时运行会出错停止。选择智能体模式可让任务自行运行。</translation>
    </message>
    <message>
        <source>Run on this schedule</source>
        <translation>按此时间安排运行</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Prompt</source>
        <translation>提示词</translation>
    </message>
    <message>
        <source>Schedule</source>
        <translation>时间安排</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Thinking</source>
        <translation>思考</translation>
    </message>
    <message>
        <source>Project</source>
        <translation>项目</translation>
    </message>
    <message>
        <source>Chat</source>
        <translation>对话</translation>
    </message>
    <message>
        <source>Mode</source>
        <translation>模式</translation>
    </message>
    <message>
        <source>The app&apos;s default model</source>
        <translation>应用的默认模型</translation>
    </message>
    <message>
        <source>No project</source>
        <translation>无项目</translation>
    </message>
    <message>
        <source>Give the task a name.</source>
        <translation>请为任务起个名称。</translation>
    </message>
    <message>
        <source>Write what the task should ask.</source>
        <translation>请写下任务要问的内容。</translation>
    </message>
    <message>
        <source>That moment has passed. Pick a time in the future.</source>
        <translation>该时间已经过去。请选择将来的时间。</translation>
    </message>
    <message>
        <source>Write the time as HH:MM on a 24-hour clock, for example 07:30.</source>
        <translation>请按 24 小时制以 HH:MM 格式填写时间，例如 07:30。</translation>
    </message>
    <message>
        <source>Pick at least one day.</source>
        <translation>请至少选择一天。</translation>
    </message>
    <message>
        <source>That provider is no longer set up. Pick another model.</source>
        <translation>已不再配置该服务商。请选择其他模型。</translation>
    </message>
    <message>
        <source>That model is no longer offered. Pick another one.</source>
        <translation>该模型已不再提供。请选择其他模型。</translation>
    </message>
    <message>
        <source>That project is no longer there. Pick another one.</source>
        <translation>该项目已不存在。请选择其他项目。</translation>
    </message>
    <message>
        <source>Write the folder as a full path, for example /home/me/site.</source>
        <translation>请填写完整路径，例如 /home/me/site。</translation>
    </message>
    <message>
        <source>Pick from 5 to 1440 minutes.</source>
        <translation>请选择 5 到 1440 分钟。</translation>
    </message>
</context>
<context>
    <name>TodoPanel</name>
    <message>
        <source>Checklist done: %1 of %2</source>
        <translation>清单已完成：%1 / %2</translation>
    </message>
    <message>
        <source>Checklist: %1 of %2 done</source>
        <translation>清单：已完成 %1 / %2</translation>
    </message>
    <message>
        <source>Show the checklist</source>
        <translation>显示清单</translation>
    </message>
    <message>
        <source>Fold the checklist</source>
        <translation>折叠清单</translation>
    </message>
</context>
<context>
    <name>TooLong</name>
    <message>
        <source>Message too long</source>
        <translation>消息太长</translation>
    </message>
    <message>
        <source>This message is too long for the model’s context window, so it was not sent.</source>
        <translation>这条消息超出了模型的上下文窗口，因此没有发送。</translation>
    </message>
    <message>
        <source>With the conversation so far it needs about %1 tokens; the model takes about %2 per message (a %3 context window, with room kept for the reply). Your message is still in the box.</source>
        <translation>加上目前的对话约需 %1 个 token；该模型每条消息约可接收 %2（上下文窗口 %3，其中一部分留给回复）。您的消息仍在输入框中。</translation>
    </message>
    <message>
        <source>Summarise earlier messages and send</source>
        <translation>总结较早的消息并发送</translation>
    </message>
    <message>
        <source>Remove the largest attachments</source>
        <translation>移除最大的附件</translation>
    </message>
    <message>
        <source>Keep editing</source>
        <translation>继续编辑</translation>
    </message>
</context>
<context>
    <name>ToolDialog</name>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
</context>
<context>
    <name>ToolRows</name>
    <message>
        <source>… %1 more lines</source>
        <translation>…… 还有 %1 行</translation>
    </message>
    <message>
        <source>The call failed without saying why.</source>
        <translation>调用失败，未说明原因。</translation>
    </message>
    <message>
        <source>Running…</source>
        <translation>运行中……</translation>
    </message>
    <message>
        <source>No result was recorded.</source>
        <translation>没有记录结果。</translation>
    </message>
    <message>
        <source>(nothing)</source>
        <translation>（无内容）</translation>
    </message>
    <message>
        <source>No change to show.</source>
        <translation>没有可显示的更改。</translation>
    </message>
    <message>
        <source>… %1 earlier lines</source>
        <translation>…… 之前还有 %1 行</translation>
    </message>
    <message>
        <source>Exit status %1</source>
        <translation>退出状态 %1</translation>
    </message>
    <message>
        <source>(no output)</source>
        <translation>（无输出）</translation>
    </message>
    <message>
        <source>Reverted: the file is back as it was before this change.</source>
        <translation>已撤销：文件已恢复到此更改之前的样子。</translation>
    </message>
    <message>
        <source>This change can&apos;t be reverted: the file was larger than 1 MiB, so its earlier version was not kept.</source>
        <translation>此更改无法撤销：文件大于 1 MiB，因此没有保留其早期版本。</translation>
    </message>
</context>
<context>
    <name>ToolsPage</name>
    <message>
        <source>Tools</source>
        <translation>工具</translation>
    </message>
    <message>
        <source>MCP servers give the model more tools in every chat. A server starts when a chat first needs it. Tools not marked read-only ask before they run, unless the chat allows everything.</source>
        <translation>MCP 服务器为每个对话中的模型提供更多工具。服务器在对话首次需要时启动。未标记为只读的工具在运行前会先询问，除非该对话允许所有操作。</translation>
    </message>
    <message>
        <source>Add…</source>
        <translation>添加…</translation>
    </message>
    <message>
        <source>Import…</source>
        <translation>导入…</translation>
    </message>
    <message>
        <source>Read the mcpServers of a Claude Desktop or Cursor settings file</source>
        <translation>读取 Claude Desktop 或 Cursor 设置文件中的 mcpServers</translation>
    </message>
    <message>
        <source>No MCP servers yet. Add one, or import the file of another app.</source>
        <translation>还没有 MCP 服务器。添加一个，或导入其他应用的设置文件。</translation>
    </message>
    <message>
        <source>Use this server&apos;s tools</source>
        <translation>使用此服务器的工具</translation>
    </message>
    <message>
        <source>Details</source>
        <translation>详情</translation>
    </message>
    <message>
        <source>Edit…</source>
        <translation>编辑…</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>Off</source>
        <translation>已关闭</translation>
    </message>
    <message>
        <source>Starting…</source>
        <translation>正在启动…</translation>
    </message>
    <message>
        <source>Ready · 1 tool</source>
        <translation>就绪 · 1 个工具</translation>
    </message>
    <message>
        <source>Ready · %1 tools</source>
        <translation>就绪 · %1 个工具</translation>
    </message>
    <message>
        <source>Failed: %1</source>
        <translation>失败：%1</translation>
    </message>
    <message>
        <source>unknown reason</source>
        <translation>原因未知</translation>
    </message>
    <message>
        <source>Starts when a chat needs it</source>
        <translation>在对话需要时启动</translation>
    </message>
    <message>
        <source>The MCP servers could not be read: %1</source>
        <translation>无法读取 MCP 服务器：%1</translation>
    </message>
    <message>
        <source>Streamable HTTP: %1</source>
        <translation>可流式 HTTP：%1</translation>
    </message>
    <message>
        <source>Command: %1</source>
        <translation>命令：%1</translation>
    </message>
    <message>
        <source>The tools are listed here once the server has started in a chat.</source>
        <translation>服务器在对话中启动后，这里会列出它的工具。</translation>
    </message>
    <message>
        <source>(read-only)</source>
        <translation>（只读）</translation>
    </message>
    <message>
        <source>Remove MCP server</source>
        <translation>移除 MCP 服务器</translation>
    </message>
    <message>
        <source>Remove %1 and its stored keys? Chats keep the results of its past calls.</source>
        <translation>移除 %1 及其保存的密钥？对话会保留它以往调用的结果。</translation>
    </message>
    <message>
        <source>Import MCP servers</source>
        <translation>导入 MCP 服务器</translation>
    </message>
    <message>
        <source>Settings files (*.json);;All files (*)</source>
        <translation>设置文件 (*.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>%1 could not be read: %2</source>
        <translation>无法读取 %1：%2</translation>
    </message>
    <message>
        <source>Imported: %1</source>
        <translation>已导入：%1</translation>
    </message>
    <message>
        <source>Skipped %1: %2</source>
        <translation>已跳过 %1：%2</translation>
    </message>
    <message>
        <source>The file lists no MCP servers.</source>
        <translation>该文件未列出任何 MCP 服务器。</translation>
    </message>
</context>
<context>
    <name>TranscriptModel</name>
    <message>
        <source>Earlier messages summarised</source>
        <translation>较早的消息已汇总为摘要</translation>
    </message>
</context>
<context>
    <name>TranscriptView</name>
    <message>
        <source>Jump to latest</source>
        <translation>跳到最新</translation>
    </message>
</context>
<context>
    <name>TrashDialog</name>
    <message>
        <source>Trash</source>
        <translation>回收站</translation>
    </message>
    <message>
        <source>Chats you deleted. Restore one to bring it back to the sidebar, or delete it for good.</source>
        <translation>你删除的对话。恢复后会回到侧边栏，也可以永久删除。</translation>
    </message>
    <message>
        <source>Chat</source>
        <translation>对话</translation>
    </message>
    <message>
        <source>From</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>Deleted</source>
        <translation>删除时间</translation>
    </message>
    <message>
        <source>Empty trash…</source>
        <translation>清空回收站…</translation>
    </message>
    <message>
        <source>Delete for good…</source>
        <translation>永久删除…</translation>
    </message>
    <message>
        <source>Restore</source>
        <translation>恢复</translation>
    </message>
    <message>
        <source>pidesktop</source>
        <translation>pidesktop</translation>
    </message>
    <message>
        <source>The trash is empty.</source>
        <translation>回收站是空的。</translation>
    </message>
    <message>
        <source>“%1” is back in the sidebar.</source>
        <translation>“%1”已回到侧边栏。</translation>
    </message>
    <message>
        <source>%1 chats are back in the sidebar.</source>
        <translation>%1 个对话已回到侧边栏。</translation>
    </message>
    <message>
        <source>Delete “%1” for good? This cannot be undone.</source>
        <translation>要永久删除“%1”吗？此操作无法撤销。</translation>
    </message>
    <message>
        <source>Delete %1 chats for good? This cannot be undone.</source>
        <translation>要永久删除 %1 个对话吗？此操作无法撤销。</translation>
    </message>
    <message>
        <source>An imported chat comes back if you import it again from its source.</source>
        <translation>导入的对话可以从其来源再次导入找回。</translation>
    </message>
    <message>
        <source>Delete for good</source>
        <translation>永久删除</translation>
    </message>
    <message>
        <source>Empty trash</source>
        <translation>清空回收站</translation>
    </message>
    <message>
        <source>Delete the chat in the trash for good? This cannot be undone.</source>
        <translation>要永久删除回收站中的这个对话吗？此操作无法撤销。</translation>
    </message>
    <message>
        <source>Delete all %1 chats in the trash for good? This cannot be undone.</source>
        <translation>要永久删除回收站中的全部 %1 个对话吗？此操作无法撤销。</translation>
    </message>
</context>
<context>
    <name>TrayNotifier</name>
    <message>
        <source>Untitled task</source>
        <translation>未命名任务</translation>
    </message>
    <message>
        <source>Task failed</source>
        <translation>任务失败</translation>
    </message>
    <message>
        <source>Task finished</source>
        <translation>任务已完成</translation>
    </message>
    <message>
        <source>Automation failed</source>
        <translation>自动化任务失败</translation>
    </message>
    <message>
        <source>Automation finished</source>
        <translation>自动化任务已完成</translation>
    </message>
</context>
<context>
    <name>UsagePage</name>
    <message>
        <source>Usage</source>
        <translation>用量</translation>
    </message>
    <message>
        <source>By model</source>
        <translation>按模型</translation>
    </message>
    <message>
        <source>Type the price you pay per million tokens to see costs; leave it empty when you do not know it.</source>
        <translation>输入每百万 token 的价格即可查看费用；不知道时请留空。</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Turns</source>
        <translation>轮次</translation>
    </message>
    <message>
        <source>Input</source>
        <translation>输入</translation>
    </message>
    <message>
        <source>Output</source>
        <translation>输出</translation>
    </message>
    <message>
        <source>Cost</source>
        <translation>费用</translation>
    </message>
    <message>
        <source>Input / 1M</source>
        <translation>输入 / 百万</translation>
    </message>
    <message>
        <source>Output / 1M</source>
        <translation>输出 / 百万</translation>
    </message>
    <message>
        <source>By day</source>
        <translation>按天</translation>
    </message>
    <message>
        <source>Day</source>
        <translation>日期</translation>
    </message>
    <message>
        <source>No replies in the last 30 days yet.</source>
        <translation>最近 30 天还没有回复。</translation>
    </message>
    <message>
        <source>Usage could not be read: %1</source>
        <translation>无法读取用量：%1</translation>
    </message>
    <message>
        <source>Last %1 days: %2, %3 tokens in, %4 out · cost %5</source>
        <translation>最近 %1 天：%2，输入 %3 个 token，输出 %4 · 费用 %5</translation>
    </message>
    <message>
        <source>1 reply</source>
        <translation>1 条回复</translation>
    </message>
    <message>
        <source>%1 replies</source>
        <translation>%1 条回复</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>Price per million tokens (USD); empty when unknown</source>
        <translation>每百万 token 的价格（美元）；未知时留空</translation>
    </message>
    <message>
        <source>at least %1</source>
        <translation>至少 %1</translation>
    </message>
</context>
<context>
    <name>VerifyDialog</name>
    <message>
        <source>Verify data</source>
        <translation>校验数据</translation>
    </message>
    <message>
        <source>Checks the database and that every indexed message can be read from its transcript. Nothing is changed.</source>
        <translation>检查数据库，以及每条已索引的消息能否从其对话记录中读取。不会做任何更改。</translation>
    </message>
    <message>
        <source>Verify again</source>
        <translation>再次校验</translation>
    </message>
    <message>
        <source>%1 checked.</source>
        <translation>已检查 %1。</translation>
    </message>
    <message>
        <source>No problems found.</source>
        <translation>未发现问题。</translation>
    </message>
    <message>
        <source>Problems found: %1.</source>
        <translation>发现问题：%1 个。</translation>
    </message>
    <message>
        <source>Recoverable (pidesktop restores these at the next start):</source>
        <translation>可恢复（pidesktop 会在下次启动时恢复）：</translation>
    </message>
</context>
<context>
    <name>Workbench</name>
    <message>
        <source>Start a conversation</source>
        <translation>开始对话</translation>
    </message>
    <message>
        <source>Type below, or press Ctrl+N for a new chat.</source>
        <translation>在下方输入，或按 Ctrl+N 新建对话。</translation>
    </message>
</context>
<context>
    <name>WorkflowsDialog</name>
    <message>
        <source>Workflows</source>
        <translation>工作流</translation>
    </message>
    <message>
        <source>The Pi Workflows state database keeps runs, decisions and leases. This only reads it.</source>
        <translation>Pi Workflows 状态数据库保存运行、决定和租约。这里只读取它。</translation>
    </message>
    <message>
        <source>Item</source>
        <translation>项目</translation>
    </message>
    <message>
        <source>Count</source>
        <translation>数量</translation>
    </message>
    <message>
        <source>Full path of the new backup file</source>
        <translation>新备份文件的完整路径</translation>
    </message>
    <message>
        <source>Verify</source>
        <translation>校验</translation>
    </message>
    <message>
        <source>Back up…</source>
        <translation>备份…</translation>
    </message>
    <message>
        <source>There is no workflows database yet. It is created the first time Pi Workflows runs.</source>
        <translation>还没有工作流数据库。它会在 Pi Workflows 首次运行时创建。</translation>
    </message>
    <message>
        <source>The workflows database is not one this version can read (%1 problems). Verify shows them.</source>
        <translation>此版本无法读取该工作流数据库（%1 个问题）。校验可显示详情。</translation>
    </message>
    <message>
        <source>Database size</source>
        <translation>数据库大小</translation>
    </message>
    <message>
        <source>Runs: %1</source>
        <translation>运行：%1</translation>
    </message>
    <message>
        <source>Decisions: %1</source>
        <translation>决定：%1</translation>
    </message>
    <message>
        <source>Active leases</source>
        <translation>有效租约</translation>
    </message>
    <message>
        <source>Stale leases</source>
        <translation>过期租约</translation>
    </message>
    <message>
        <source>Unsettled effects</source>
        <translation>未结算的副作用</translation>
    </message>
    <message>
        <source>The workflows database is ready.</source>
        <translation>工作流数据库已就绪。</translation>
    </message>
    <message>
        <source>Verified: no problems found.</source>
        <translation>已校验：未发现问题。</translation>
    </message>
    <message>
        <source>Problems found:</source>
        <translation>发现问题：</translation>
    </message>
    <message>
        <source>Back up</source>
        <translation>备份</translation>
    </message>
    <message>
        <source>Backed up and verified: %1 (%2).</source>
        <translation>已备份并校验：%1（%2）。</translation>
    </message>
</context>
<context>
    <name>_SavedS3Dialog</name>
    <message>
        <source>Reading the Settings &gt; Sync connection…</source>
        <translation>正在读取“设置 &gt; 同步”的连接…</translation>
    </message>
    <message>
        <source>Passphrase (leave empty to use the Settings &gt; Sync one)</source>
        <translation>密码短语（留空则使用“设置 &gt; 同步”的密码短语）</translation>
    </message>
    <message>
        <source>Details</source>
        <translation>详情</translation>
    </message>
    <message>
        <source>Settings &gt; Sync is not set up: fill in the bucket and its key there first.</source>
        <translation>“设置 &gt; 同步”尚未设置：请先在那里填写存储桶和密钥。</translation>
    </message>
    <message>
        <source>AWS</source>
        <translation>AWS</translation>
    </message>
    <message>
        <source>Into %1 at %2</source>
        <translation>存入 %2 上的 %1</translation>
    </message>
</context>
</TS>
