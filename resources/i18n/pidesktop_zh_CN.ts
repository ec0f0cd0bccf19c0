<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
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
    <name>Composer</name>
    <message>
        <source>Send</source>
        <translation>发送</translation>
    </message>
    <message>
        <source>Send (Enter)</source>
        <translation>发送（Enter）</translation>
    </message>
    <message>
        <source>Editing an earlier message — Send replaces it and what followed</source>
        <translation>正在编辑之前的消息——发送后将替换这条消息及其后的内容</translation>
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
        <source>Moving the data folder and maintenance tools come in a later version.</source>
        <translation>移动数据文件夹和维护工具将在后续版本中提供。</translation>
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
        <source> characters</source>
        <translation> 个字符</translation>
    </message>
    <message>
        <source>The new language is used the next time pidesktop starts.</source>
        <translation>新语言将在下次启动 pidesktop 时生效。</translation>
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
        <source>Failed · %1</source>
        <translation>失败 · %1</translation>
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
    <name>MainWindow</name>
    <message>
        <source>The model that answers in this chat (Settings &gt; Providers)</source>
        <translation>在此对话中回答的模型（设置 &gt; 提供商）</translation>
    </message>
    <message>
        <source>Start a conversation</source>
        <translation>开始对话</translation>
    </message>
    <message>
        <source>Type below, or press Ctrl+N for a new chat.</source>
        <translation>在下方输入，或按 Ctrl+N 新建对话。</translation>
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
        <source>Settings…</source>
        <translation>设置…</translation>
    </message>
    <message>
        <source>Stop reply</source>
        <translation>停止回复</translation>
    </message>
    <message>
        <source>New chat (Ctrl+N)</source>
        <translation>新对话（Ctrl+N）</translation>
    </message>
    <message>
        <source>Delete chat</source>
        <translation>删除对话</translation>
    </message>
    <message>
        <source>Delete “%1”?</source>
        <translation>要删除“%1”吗？</translation>
    </message>
    <message>
        <source>Its messages and files are removed from this computer. This cannot be undone.</source>
        <translation>其中的消息和文件将从这台电脑上移除。此操作无法撤销。</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
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
        <source>Offline demo (no AI)</source>
        <translation>离线演示（无 AI）</translation>
    </message>
    <message>
        <source>Your data can’t be opened.</source>
        <translation>无法打开你的数据。</translation>
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
        <translation>创建分支</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Regenerate</source>
        <translation>重新生成</translation>
    </message>
    <message>
        <source>Earlier messages summarised</source>
        <translation>较早的消息已汇总为摘要</translation>
    </message>
    <message>
        <source>attachment</source>
        <translation>附件</translation>
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
        <source>Save the provider first.</source>
        <translation>请先保存提供商。</translation>
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
    <name>QueueStrip</name>
    <message>
        <source>Resume</source>
        <translation>继续</translation>
    </message>
    <message>
        <source>Send the next waiting prompt</source>
        <translation>发送下一条等待中的消息</translation>
    </message>
    <message numerus="yes">
        <source>%n prompt(s) waiting</source>
        <translation>
            <numerusform>%n 条消息等待发送</numerusform>
        </translation>
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
        <source>%1 of %2 chats</source>
        <translation>已显示 %1 个，共 %2 个对话</translation>
    </message>
    <message>
        <source>1 chat</source>
        <translation>1 个对话</translation>
    </message>
    <message>
        <source>%1 chats</source>
        <translation>%1 个对话</translation>
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
        <source>Data</source>
        <translation>数据</translation>
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
        <translation>创建分支</translation>
    </message>
    <message>
        <source>Copy this chat into a new one</source>
        <translation>将此对话复制为新对话</translation>
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
</TS>
